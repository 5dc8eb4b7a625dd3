import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { categories } from '../../../machines/support/support.events.ts';
import { EffectError } from '../../../src/effects/effect-errors.ts';
import { FilePolicySource, type PolicyDocument } from '../../../machines/support/effects/evidence.ts';
import { validateRecommendation } from '../../../machines/support/effects/checks.ts';

const policy: PolicyDocument = {
  id: 'refunds-billing',
  version: '7',
  category: 'billing',
  maxRefund: 100,
  currencies: ['EUR', 'USD'],
  requiresHumanJudgement: false,
  judgementQuestions: [],
  rules: ['Refund duplicate charges.'],
};

describe('policy source', () => {
  it('ships a valid default policy for every category', async () => {
    const source = new FilePolicySource();
    for (const category of categories) {
      const resolved = await source.get('some-tenant', category);
      expect(resolved).toMatchObject({ source: 'default', document: { category } });
    }
  });

  it("prefers the tenant's own policy over the default", async () => {
    const source = new FilePolicySource();
    expect(await source.get('initech', 'billing')).toMatchObject({
      source: 'tenant',
      document: { id: 'initech-refunds-billing', maxRefund: 100, currencies: ['USD'] },
    });
    expect(await source.get('initech', 'access')).toMatchObject({
      source: 'default',
      document: { id: 'refunds-access' },
    });
  });

  it('never reads outside the policy directory for an odd tenant id', async () => {
    expect(await new FilePolicySource().get('../fixtures', 'billing')).toMatchObject({ source: 'default' });
  });

  it('refuses a policy document that does not match the schema', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'warden-policies-'));
    try {
      await mkdir(join(dir, 'default'));
      await writeFile(join(dir, 'default', 'billing.json'), JSON.stringify({ ...policy, maxRefund: -1 }));
      const source = new FilePolicySource(pathToFileURL(`${dir}/`));
      await expect(source.get('t', 'billing')).rejects.toBeInstanceOf(EffectError);
      expect(await source.get('t', 'access')).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('policy validator', () => {
  it('accepts an amount up to the maximum in an allowed currency', () => {
    expect(validateRecommendation({ amount: 100, currency: 'EUR' }, policy)).toMatchObject({ outcome: 'valid' });
  });

  it('rejects an amount above the maximum as revisable', () => {
    expect(validateRecommendation({ amount: 100.01, currency: 'USD' }, policy)).toEqual({
      outcome: 'invalid',
      revisable: true,
      reasons: ['amount 100.01 exceeds the policy maximum of 100.00'],
    });
  });

  it('rejects a currency the policy does not allow as not revisable', () => {
    const verdict = validateRecommendation({ amount: 10, currency: 'GBP' }, policy);
    expect(verdict).toMatchObject({ outcome: 'invalid', revisable: false });
  });

  it('answers unclear with the policy questions when the category needs human judgement', () => {
    const judged = { ...policy, requiresHumanJudgement: true, judgementQuestions: ['Was the SLA breached?'] };
    expect(validateRecommendation({ amount: 1, currency: 'EUR' }, judged)).toEqual({
      outcome: 'unclear',
      questions: ['Was the SLA breached?'],
    });
    const noQuestions = validateRecommendation({ amount: 1, currency: 'EUR' }, { ...judged, judgementQuestions: [] });
    expect(noQuestions).toMatchObject({
      outcome: 'unclear',
      questions: [expect.stringContaining('refunds-billing@7')],
    });
  });
});
