/**
 * Refund policies: versioned JSON documents shipped in the repository under
 * `policies/<tenant>/<category>.json`, falling back to `policies/default/<category>.json`.
 * A document is validated when it is read, so a broken policy fails loudly instead of approving.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { categories, currency, money } from '../support.events.ts';
import type { Category } from '../support.context.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';

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

/** Tenant ids become path segments: anything but a plain name could walk out of the directory. */
const safeSegment = /^[A-Za-z0-9_-]{1,100}$/;

export const defaultPolicyDirectory = new URL('../../../policies/', import.meta.url);

export class FilePolicySource implements PolicySource {
  private readonly cache = new Map<string, Promise<PolicyDocument | null>>();

  /** `directory` defaults to the repository's `policies/`. */
  constructor(private readonly directory: URL = defaultPolicyDirectory) {}

  async get(tenantId: string, category: Category): Promise<ResolvedPolicy | null> {
    if (safeSegment.test(tenantId) && tenantId !== 'default') {
      const own = await this.read(tenantId, category);
      if (own) return { tenantId, source: 'tenant', document: own };
    }
    const fallback = await this.read('default', category);
    return fallback ? { tenantId, source: 'default', document: fallback } : null;
  }

  private read(folder: string, category: Category): Promise<PolicyDocument | null> {
    const file = new URL(`${folder}/${category}.json`, this.directory);
    let document = this.cache.get(file.href);
    if (!document) {
      document = loadPolicy(file, category);
      // Failed reads are not cached: a transient I/O error must not stick.
      document.catch(() => this.cache.delete(file.href));
      this.cache.set(file.href, document);
    }
    return document;
  }
}

async function loadPolicy(file: URL, category: Category): Promise<PolicyDocument | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: ReturnType<typeof policyDocumentSchema.safeParse>;
  try {
    parsed = policyDocumentSchema.safeParse(JSON.parse(text));
  } catch (error) {
    throw new EffectError('INTERNAL', `${file.pathname} is not JSON: ${(error as Error).message}`, false);
  }
  // A broken policy is a deployment mistake: retrying cannot fix it, a person must.
  if (!parsed.success)
    throw new EffectError('INTERNAL', `${file.pathname} is not a valid policy: ${parsed.error.message}`, false);
  if (parsed.data.category !== category) {
    throw new EffectError(
      'INTERNAL',
      `${file.pathname} declares category ${parsed.data.category}, not ${category}`,
      false,
    );
  }
  return parsed.data;
}
