/** A replayed path that does not end where the traversal said is named with where the two differ. */
import { describe, expect, it } from 'vitest';
import { stampWorkflow } from '../../platform/tiny-workflow.ts';
import { generatePaths } from '../../../src/paths/generate.ts';
import type { Walkable } from '../../../src/paths/walk.ts';
import { misplacedEnd, replayPure } from '../../../src/testing/path-suite.ts';

const walkable: Walkable = { definition: stampWorkflow.latest, paths: stampWorkflow.paths };
const { paths } = generatePaths(walkable, { simple: false });
const path = paths.find((p) => p.kind === 'shortest' && p.finalStatePaths.includes('awaitingSignOff'));

describe('misplacedEnd', () => {
  it('is null where the replay ends in the state the traversal saw', () => {
    if (!path) throw new Error('no path to awaitingSignOff');
    expect(misplacedEnd(walkable, path, replayPure(walkable, path).walk)).toBeNull();
  });

  it('names the path, both state paths and the first place the states differ', () => {
    if (!path) throw new Error('no path to awaitingSignOff');
    const drifted = { ...path, target: path.target.replace('contract-1', 'contract-2') };
    const message = misplacedEnd(walkable, drifted, replayPure(walkable, drifted).walk);
    expect(message).toMatch(
      /^a shortest path does not end where the traversal said: START → STAMPED ends in awaitingSignOff, the traversal said awaitingSignOff; the states first differ at …/,
    );
    expect(message).toMatch(/"contract-2".*\(traversal\) and .*"contract-1".*\(replay\)$/);
  });
});
