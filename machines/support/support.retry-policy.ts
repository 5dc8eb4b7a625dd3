/** Kept for the modules that still import from here: support's operations and retry policies are declared with its effects. */
export { operations, retryPolicies, type Operation } from './support.effects.ts';
