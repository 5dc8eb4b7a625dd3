/**
 * The generated path suite of agent-task@1: its graph (reachability, the invariants on every edge,
 * coverage), every path through the pure decider, and every shortest and transition path plus the
 * simple paths through the engine on the real Redis with crashes injected at every step.
 */
import { agentTask, agentTaskV1 } from '../../machines/agent-task/index.ts';
import { definePathSuite } from '../model/path-suite.ts';

definePathSuite({ definition: agentTaskV1, paths: agentTask.paths }, { engine: true, simpleOnEngine: 50 });
