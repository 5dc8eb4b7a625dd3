/**
 * The authoring kit: what a workflow's author writes against. The chart (`setup().createMachine`),
 * its events (`event`, `result`, `failure`, `deadLetter`), its effects (`effect`, or `effectsOf` to
 * type them by their params' schemas; `retryPoliciesOf` for their policies as data), and `workflow()`
 * to bundle it. The platform owns the rest: job ids, attempts, retries, stale results, envelopes.
 * And the pieces most workflows need: an operation run once under an idempotency key
 * (`ledgerEffects`), the checks of a person's decision on a versioned subject (`decisionChecks`), a
 * view rendered from its schema, the demo's decision from the console's prefill, the model budget,
 * a path model's shared example payloads, the jobs of a context that predates the kit, a catalogue
 * of the operations an agent may propose, a model's proposal as a job's result, the path
 * invariants of an operation a person approves before the ledger executes it, JSON documents
 * shipped with a deployment (`jsonDocuments`), and a workflow's handlers on adapters given by hand
 * for its tests (`offlineHandlers`).
 */
export {
  attemptOf,
  setup,
  type Args,
  type Check,
  type EngineInput,
  type GuardDeclaration,
  type Update,
} from './setup.ts';
export {
  effect,
  effectsOf,
  retryPoliciesOf,
  type EffectDeclaration,
  type EffectOutcome,
  type RetryPolicy,
  type RetryPolicyData,
  type RunContext,
  type TypedEffect,
} from './effect.ts';
export {
  deadLetter,
  event,
  eventSchemasOf,
  failure,
  payloadReaders,
  personEventsOf,
  result,
  type DeclaredPayload,
  type EnvelopeOf,
} from './events.ts';
export { outcomesOf, workflow, type OutcomeChecks, type WorkflowSpec } from './workflow.ts';
export { offlineHandlers, type OfflineAdapters } from '../definitions/offline-handlers.ts';
export { jsonDocuments } from '../effects/json-documents.ts';
export { fillTemplate, presentFromSpec, type PresentationSpec, type Shown } from './presentation.ts';
export { EffectError } from '../effects/effect-errors.ts';
export { claimOf } from '../engine/principal.ts';
export {
  executionAfter,
  executionRecord,
  executionStatus,
  ledgerEffects,
  ledgerEventDeclarations,
  ledgerEventsOf,
  ledgerKeyOf,
  type LedgerEffects,
  type LedgerEffectsSpec,
  type ExecutionStatus,
  type LedgerEvents,
} from './ledger-effects.ts';
export { decisionChecks, deciderFields, deciderOf, namesCurrent, type DecisionChecksSpec } from './decision-checks.ts';
export { escalationDetail, escalationOf, escalationRecord, type EscalationRecord } from './escalation.ts';
export { approvedExecutionInvariants, type ApprovedExecutionSpec } from './approved-execution.ts';
export { finalOutcome, pickBySchema, renderBySchema } from './view-pick.ts';
export { prefilledDecision, type PrefilledDecisionSpec } from './demo-decide.ts';
export { jobsFromCounts } from './legacy-jobs.ts';
export {
  freshProposalHash,
  nextProposal,
  proposalExamples,
  proposalFields,
  proposalOutcome,
  proposalRecord,
  type ProposalExampleOptions,
  type ProposalSpec,
} from './model-proposal.ts';
export { keywordPlanner, type KeywordPlannerSpec } from './keyword-planner.ts';
export {
  catalogueExecution,
  operationCatalogue,
  operationReceipt,
  operationSummary,
  type OperationCatalogue,
  type OperationReceipt,
  type OperationSpec,
  type OperationSummary,
} from './operation-catalogue.ts';
export {
  defaultModelBudget,
  modelBudgetExhausted,
  modelBudgetFields,
  modelBudgetOf,
  modelSpendOf,
  spendingOf,
  type BudgetedContext,
  type ModelBudget,
  type ModelSpend,
} from '../definitions/model-spend.ts';
export {
  decisionExamples,
  failureExamples,
  foreignHash,
  type DecisionExamplesOptions,
} from '../paths/example-variants.ts';
