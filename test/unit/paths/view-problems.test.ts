/** A view rendered against its schema: what the schema refuses, and what it does not declare. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stampWorkflow } from '../../platform/tiny-workflow.ts';
import { initialWalk, type Walkable } from '../../../src/paths/walk.ts';
import { viewProblems } from '../../../src/testing/view-problems.ts';
import type { AnyWorkflowBundle } from '../../../src/definitions/workflow.ts';

const walkable: Walkable = { definition: stampWorkflow.latest, paths: stampWorkflow.paths };
const { record } = initialWalk(walkable);
const withView = (view: Partial<AnyWorkflowBundle['view']>) =>
  ({ ...stampWorkflow, view: { ...stampWorkflow.view, ...view } }) as AnyWorkflowBundle;

describe('viewProblems', () => {
  it('finds none in a view its schema describes', () => {
    expect(viewProblems(stampWorkflow, stampWorkflow.latest, record)).toEqual([]);
  });

  it('names what the schema refuses, by field', () => {
    const bundle = withView({ render: () => ({ document: 7, stamp: null, signedBy: null }) });
    expect(viewProblems(bundle, stampWorkflow.latest, record)).toEqual([
      'view.schema refuses what render returns (document: Invalid input: expected string, received number)',
    ]);
  });

  it('names the fields render returns that the schema does not declare', () => {
    const bundle = withView({
      schema: z.object({ document: z.string() }),
      render: () => ({ document: 'contract-1', createdAt: 1, correlationId: 'c' }),
    });
    expect(viewProblems(bundle, stampWorkflow.latest, record)).toEqual([
      'render returns createdAt, correlationId, which view.schema does not declare',
    ]);
  });
});
