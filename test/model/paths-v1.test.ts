/**
 * The generated path suite of support@1, frozen and still running every workflow started on it: its
 * graph (reachability, invariants on every edge, coverage) and every path through the pure decider.
 * The engine and store code it runs on is the same as support@2's, whose suite replays through the
 * engine with crashes; keeping that to one version keeps the generated suite within a minute.
 */
import { support, supportV1 } from '../../machines/support/index.ts';
import { definePathSuite } from './path-suite.ts';

definePathSuite({ definition: supportV1, paths: support.paths }, { engine: false, simpleOnEngine: 0 });
