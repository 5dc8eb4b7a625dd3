/**
 * `warden/testing`: what a project's vitest tests build on. `definePathSuite(myWorkflow)` generates
 * the paths of a workflow and replays them through the decider and the engine with crashes
 * injected; the memory store and a clock a test moves run an engine without Redis.
 */
export { definePathSuite, pathSuiteShards, type PathSuiteOptions, type PathSuiteStore } from './path-suite.ts';
export { createTestClock, type TestClock } from './test-clock.ts';
export { applyAs, heldJob } from './job-results.ts';
export { MemoryStore, type MemoryStoreOptions } from '../store/memory/memory-store.ts';
export { createEngine, type Engine, type EngineOptions } from '../engine/engine.ts';
export { createRegistry, type WorkflowRegistry } from '../definitions/registry.ts';
export { generatePaths, type GeneratedPath } from '../paths/generate.ts';
export { walkStart, type Walkable } from '../paths/walk.ts';
