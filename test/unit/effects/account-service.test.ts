import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { defaultAccountFixtures, FixtureAccountService } from '../../../machines/support/effects/evidence.ts';

describe('fixture account service', () => {
  it('finds a customer of the tenant', async () => {
    expect(await new FixtureAccountService().inspect('acme', 'cust-1')).toMatchObject({
      accountId: 'acct-acme-0001',
      customerId: 'cust-1',
    });
  });

  it('finds nobody for an unknown customer, an unknown tenant or another tenant’s customer', async () => {
    const accounts = new FixtureAccountService();
    expect(await accounts.inspect('acme', 'cust-nobody')).toBeNull();
    expect(await accounts.inspect('no-such-tenant', 'cust-1')).toBeNull();
    expect(await accounts.inspect('acme', 'initech-1')).toBeNull();
    expect(await accounts.inspect('../policies/default', 'cust-1')).toBeNull();
    expect(await accounts.inspect('acme', 'toString')).toBeNull();
  });

  it('ships fixtures that all match the account schema', async () => {
    const accounts = new FixtureAccountService();
    const files = await readdir(defaultAccountFixtures);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      await expect(accounts.inspect(file.replace(/\.json$/, ''), 'anyone')).resolves.toBeNull();
    }
  });
});
