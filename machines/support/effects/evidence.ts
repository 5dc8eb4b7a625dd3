/**
 * The evidence the support workflow gathers, from JSON documents shipped in the repository and
 * validated when read: refund policies under `policies/<tenant>/<category>.json` (falling back to
 * `policies/default/`), so a broken policy fails loudly instead of approving, and account summaries
 * under `fixtures/accounts/<tenant>.json` (customerId → account). A missing file is null; an invalid
 * one is a deployment mistake no retry can fix (a definitive `INTERNAL` failure: a person must); a
 * file is read once, and a failed read is not kept, so a transient I/O error does not stick.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import type { Category } from '../support.context.ts';
import { categories, currency, money } from '../support.events.ts';

/** Tenant ids become path segments: anything but a plain name could walk out of the directory. */
const safeSegment = /^[A-Za-z0-9_-]{1,100}$/;

/** A reader of `what` documents: `check` refuses a valid one for a reason of its own (a message), or passes it. */
function jsonFiles<T>(
  schema: z.ZodType<T>,
  what: string,
  check: (document: T, file: URL) => string | null = () => null,
): (file: URL) => Promise<T | null> {
  const cache = new Map<string, Promise<T | null>>();
  const load = async (file: URL): Promise<T | null> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let parsed: ReturnType<typeof schema.safeParse>;
    try {
      parsed = schema.safeParse(JSON.parse(text));
    } catch (error) {
      throw new EffectError('INTERNAL', `${file.pathname} is not JSON: ${(error as Error).message}`, false);
    }
    const problem = parsed.success ? check(parsed.data, file) : `is not a valid ${what}: ${parsed.error.message}`;
    if (problem !== null) throw new EffectError('INTERNAL', `${file.pathname} ${problem}`, false);
    return parsed.data as T;
  };
  return (file) => {
    let document = cache.get(file.href);
    if (!document) {
      document = load(file);
      document.catch(() => cache.delete(file.href));
      cache.set(file.href, document);
    }
    return document;
  };
}

export const policyDocumentSchema = z.strictObject({
  id: z.string().min(1).max(200),
  version: z.string().min(1).max(100),
  category: z.enum(categories),
  /** Largest refund the policy allows without exception, in major units. */
  maxRefund: money,
  currencies: z.array(currency).min(1),
  /** When true, no automatic validation: a person decides every case of this category. */
  requiresHumanJudgement: z.boolean().default(false),
  /** What a reviewer should answer when the policy needs human judgement. */
  judgementQuestions: z.array(z.string().min(1).max(500)).max(20).default([]),
  rules: z.array(z.string().min(1).max(2000)).min(1),
});
export type PolicyDocument = z.infer<typeof policyDocumentSchema>;

/** A policy and where it came from (the tenant's own or the default). */
export interface ResolvedPolicy {
  tenantId: string;
  source: 'tenant' | 'default';
  document: PolicyDocument;
}

export interface PolicySource {
  /** The policy governing `category` for `tenantId`, or null when none exists. */
  get(tenantId: string, category: Category): Promise<ResolvedPolicy | null>;
}

export class FilePolicySource implements PolicySource {
  private readonly read = jsonFiles(policyDocumentSchema, 'policy', (document, file) => {
    const category = /([^/]+)\.json$/.exec(file.pathname)?.[1];
    return document.category === category ? null : `declares category ${document.category}, not ${category}`;
  });

  /** `directory` defaults to the repository's `policies/`. */
  constructor(private readonly directory = new URL('../../../policies/', import.meta.url)) {}

  async get(tenantId: string, category: Category): Promise<ResolvedPolicy | null> {
    if (safeSegment.test(tenantId) && tenantId !== 'default') {
      const own = await this.read(new URL(`${tenantId}/${category}.json`, this.directory));
      if (own) return { tenantId, source: 'tenant', document: own };
    }
    const fallback = await this.read(new URL(`default/${category}.json`, this.directory));
    return fallback ? { tenantId, source: 'default', document: fallback } : null;
  }
}

const accountSummarySchema = z.strictObject({
  accountId: z.string().min(1).max(200),
  customerId: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  plan: z.string().min(1).max(100),
  status: z.enum(['active', 'suspended', 'closed']),
  currency,
  customerSince: z.iso.date(),
  /** Refunds already made in the last 90 days, in the account currency. */
  refundedLast90Days: z.number().nonnegative(),
  orders: z.array(
    z.strictObject({
      orderId: z.string().min(1).max(200),
      amount: money,
      currency,
      chargedAt: z.iso.datetime(),
      charges: z.number().int().positive(),
    }),
  ),
});
export type AccountSummary = z.infer<typeof accountSummarySchema>;

export interface AccountService {
  /** The customer's account, or null when the tenant has no such customer. */
  inspect(tenantId: string, customerId: string): Promise<AccountSummary | null>;
}

export const defaultAccountFixtures = new URL('../../../fixtures/accounts/', import.meta.url);

export class FixtureAccountService implements AccountService {
  private readonly read = jsonFiles(z.record(z.string(), accountSummarySchema), 'account fixture file');

  /** `directory` defaults to the repository's `fixtures/accounts/`. */
  constructor(private readonly directory: URL = defaultAccountFixtures) {}

  async inspect(tenantId: string, customerId: string): Promise<AccountSummary | null> {
    // An unknown or unsafe tenant has no customers, rather than a file outside the fixtures.
    if (!safeSegment.test(tenantId)) return null;
    const accounts = (await this.read(new URL(`${tenantId}.json`, this.directory))) ?? {};
    return Object.hasOwn(accounts, customerId) ? (accounts[customerId] ?? null) : null;
  }
}
