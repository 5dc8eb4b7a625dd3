/**
 * Explicit migrations of persisted snapshots between definition versions. A workflow keeps running
 * on the version it started on; an operator may move it forward with one of these, never silently.
 * Each migration is a pure function of the persisted snapshot and is tested on real snapshots.
 */
import type { JobsKeptBefore, SupportContext } from './support.context.ts';

export interface PersistedSnapshot {
  status: string;
  value: unknown;
  context: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Migration {
  from: string;
  to: string;
  description: string;
  migrate(snapshot: PersistedSnapshot): PersistedSnapshot;
}

/** States of support@1 from which the request has passed policy validation (the fraud screen's place in v2). */
const pastValidation = ['awaitingApproval', 'executingAction', 'notifyingCustomer', 'compensating', 'manualReview'];

function statePathText(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * support@1 → support@2. Every state of version 1 exists in version 2, so the state value is kept.
 * The context gains the fraud screen: nothing yet for requests before validation (they will be
 * screened on their way to approval); `notScreened` for requests already past it, so approvers and
 * auditors see that this one was never screened.
 */
export const supportV1toV2: Migration = {
  from: 'support@1',
  to: 'support@2',
  description: 'adds the fraud screen between policy validation and approval',
  migrate(snapshot) {
    const context = snapshot.context as unknown as SupportContext & Partial<JobsKeptBefore>;
    const text = statePathText(snapshot.value);
    const validated = context.validation?.outcome === 'valid' && pastValidation.some((s) => text.includes(`"${s}"`));
    const fraud: SupportContext['fraud'] = validated
      ? {
          status: 'notScreened',
          recommendationVersion: context.recommendation?.version ?? null,
          score: null,
          reasons: ['validated under support@1, before the fraud screen existed'],
          artifact: null,
        }
      : null;
    // A record persisted before the kit counts its jobs itself, without fraud counters (the kit's
    // own book, `$warden`, is carried over as it is).
    const { attempts, stepAttempts } = context;
    const counted =
      attempts && stepAttempts
        ? {
            attempts: { ...attempts, fraud: attempts.fraud ?? 0 },
            stepAttempts: { ...stepAttempts, fraud: stepAttempts.fraud ?? 0 },
          }
        : {};
    const migrated = { ...context, fraud, ...counted };
    return { ...snapshot, context: migrated };
  },
};

export const migrations: readonly Migration[] = [supportV1toV2];
