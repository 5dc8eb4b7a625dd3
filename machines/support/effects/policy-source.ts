/**
 * Refund policies: versioned JSON documents shipped in the repository under
 * `policies/<tenant>/<category>.json`, falling back to `policies/default/<category>.json`.
 * A document is validated when it is read, so a broken policy fails loudly instead of approving.
 */
import { z } from 'zod';
import { categories, currency, money } from '../support.events.ts';
import type { Category } from '../support.context.ts';
import { jsonFiles, safeSegment } from './json-files.ts';

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

export const defaultPolicyDirectory = new URL('../../../policies/', import.meta.url);

export class FilePolicySource implements PolicySource {
  private readonly read = jsonFiles(policyDocumentSchema, 'policy', (document, file) => {
    const category = /([^/]+)\.json$/.exec(file.pathname)?.[1];
    return document.category === category ? null : `declares category ${document.category}, not ${category}`;
  });

  /** `directory` defaults to the repository's `policies/`. */
  constructor(private readonly directory: URL = defaultPolicyDirectory) {}

  async get(tenantId: string, category: Category): Promise<ResolvedPolicy | null> {
    if (safeSegment.test(tenantId) && tenantId !== 'default') {
      const own = await this.read(new URL(`${tenantId}/${category}.json`, this.directory));
      if (own) return { tenantId, source: 'tenant', document: own };
    }
    const fallback = await this.read(new URL(`default/${category}.json`, this.directory));
    return fallback ? { tenantId, source: 'default', document: fallback } : null;
  }
}
