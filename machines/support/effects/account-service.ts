/**
 * Customer accounts. The offline implementation reads per-tenant fixtures from
 * `fixtures/accounts/<tenant>.json` (customerId → account summary), validated on read.
 */
import { z } from 'zod';
import { currency, money } from '../support.events.ts';
import { jsonFiles, safeSegment } from './json-files.ts';

export const accountSummarySchema = z.strictObject({
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
