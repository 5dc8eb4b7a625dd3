/**
 * What a project installing `warden` imports: the authoring kit and the pieces most workflows need
 * are in the package's root export, not only at paths inside Warden's repository (a workflow in a
 * user's project cannot import `warden/src/...`: the package exports `.` and `./testing`).
 */
import { describe, expect, it } from 'vitest';
import * as warden from '../../src/index.ts';

describe('the package root export', () => {
  it.each([
    'setup',
    'workflow',
    'effect',
    'event',
    'result',
    'failure',
    'deadLetter',
    'eventSchemasOf',
    'personEventsOf',
    'claimOf',
    'payloadReaders',
    'defineWorkflow',
    'ledgerEffects',
    'ledgerEventsOf',
    'executionAfter',
    'ledgerEventDeclarations',
    'executionRecord',
    'decisionChecks',
    'namesCurrent',
    'deciderOf',
    'escalationOf',
    'renderBySchema',
    'pickBySchema',
    'finalOutcome',
    'prefilledDecision',
    'presentFromSpec',
    'outcomesOf',
    'jobsFromCounts',
    'operationCatalogue',
    'catalogueExecution',
    'attemptOf',
    'proposalFields',
    'proposalOutcome',
    'nextProposal',
    'proposalExamples',
    'keywordPlanner',
    'modelBudgetExhausted',
    'spendingOf',
    'decisionExamples',
    'approvedExecutionInvariants',
    'MemoryIdempotencyLedger',
    'createIdempotencyLedger',
    'jobHandler',
  ])('exports %s', (name) => {
    expect(typeof (warden as Record<string, unknown>)[name]).toBe('function');
  });

  it('exports the shared example payloads and the model budget fields', () => {
    expect(warden.failureExamples).toMatchObject({ valid: expect.any(Object), permanent: expect.any(Object) });
    expect(Object.keys(warden.modelBudgetFields).length).toBeGreaterThan(0);
  });
});
