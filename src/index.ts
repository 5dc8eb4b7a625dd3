/**
 * `warden`: the API a project writes its workflows with. `defineWorkflow` checks a bundle,
 * `defineConfig` types `warden.config.ts`, the effect kit builds handlers (`createHandler`,
 * `EffectError`, the model boundary, the notifier, the idempotency ledger), and the authoring kit (`workflow`, `effect`,
 * `setup`) writes them. Tests take `warden/testing` (src/testing/index.ts).
 */
export { defineWorkflow, InvalidWorkflowError } from './definitions/define-workflow.ts';
export type {
  AnyWorkflowBundle,
  BehaviourFacts,
  DemoDecision,
  DemoScript,
  LocalModelRule,
  PathModel,
  PathObservation,
  PlatformAdapters,
  Presentation,
  QueueSpec,
  ResolvedCatalogueEvent,
  TokenClaimSpec,
  WalkEvent,
  WorkflowBundle,
  WorkflowBundleSpec,
  WorkflowView,
} from './definitions/workflow.ts';
export type { DeclaredEventPresentation, EventButtonKind } from './definitions/event-presentation.ts';
export { defineConfig, type WardenConfig } from './definitions/project-config.ts';
export type { EffectSpec, OutcomeInvariant, WorkflowDefinition } from './engine/definition.ts';
export type { Principal } from './engine/principal.ts';
export type { WorkflowRecord } from './engine/decision.ts';
export * from './effects/index.ts';
export * from './authoring/index.ts';
