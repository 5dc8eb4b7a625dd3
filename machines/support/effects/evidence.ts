/**
 * The evidence the support workflow gathers, from JSON documents shipped in the repository and
 * validated when read (the platform's `jsonDocuments`: a missing file is null, an invalid one a
 * definitive `INTERNAL` failure): refund policies under `policies/<tenant>/<category>.json`
 * (falling back to `policies/default/`), so a broken policy fails loudly instead of approving, and
 * account summaries under `fixtures/accounts/<tenant>.json` (customerId → account).
 */
import { z } from 'zod';
import { jsonDocuments } from '../../../src/effects/json-documents.ts';
import type { Category } from '../support.context.ts';
import { categories, currency, money } from '../support.events.ts';

/** Tenant ids become path segments: anything but a plain name could walk out of the directory. */
const safeSegment = /^[A-Za-z0-9_-]{1,100}$/;

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
  private readonly read = jsonDocuments(policyDocumentSchema, 'policy', (document, file) => {
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
  private readonly read = jsonDocuments(z.record(z.string(), accountSummarySchema), 'account fixture file');

  /** `directory` defaults to the repository's `fixtures/accounts/`. */
  constructor(private readonly directory: URL = defaultAccountFixtures) {}

  async inspect(tenantId: string, customerId: string): Promise<AccountSummary | null> {
    // An unknown or unsafe tenant has no customers, rather than a file outside the fixtures.
    if (!safeSegment.test(tenantId)) return null;
    const accounts = (await this.read(new URL(`${tenantId}.json`, this.directory))) ?? {};
    return Object.hasOwn(accounts, customerId) ? (accounts[customerId] ?? null) : null;
  }
}
