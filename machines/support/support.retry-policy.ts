/** Support's operations and their retry policies, declared with its effects in `support.effects.ts`. */
export { operations, retryPolicies, type Operation } from './support.effects.ts';
