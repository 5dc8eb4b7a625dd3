/**
 * The authoring kit: what a workflow's author writes against. The chart (`setup().createMachine`),
 * its events (`event`, `result`, `failure`, `deadLetter`), its effects (`effect`), and `workflow()`
 * to bundle it. The platform owns the rest: job ids, attempts, retries, stale results, envelopes.
 */
export { setup, type Args, type Check, type EngineInput, type GuardDeclaration, type Update } from './setup.ts';
export { effect, type EffectDeclaration, type EffectOutcome, type RetryPolicy, type RunContext } from './effect.ts';
export { deadLetter, event, failure, result, type EnvelopeOf } from './events.ts';
export { workflow, type OutcomeChecks, type WorkflowSpec } from './workflow.ts';
export { fillTemplate, type PresentationSpec, type Shown } from './presentation.ts';
export { EffectError } from '../effects/effect-errors.ts';
