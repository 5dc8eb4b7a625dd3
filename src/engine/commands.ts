/**
 * Turns the actions of a pure transition into durable commands: jobs for named effect actions,
 * timers to arm for delayed raises, timers to cancel for cancels. Everything else is dropped:
 * `assign` is already applied and an immediate `raise` was already processed.
 */
import { definitionKey, type WorkflowDefinition } from './definition.ts';
import type { ArmedTimer, Effect, TimerToArm } from './decision.ts';
import { DefinitionError } from './errors.ts';

export interface PlannedCommands {
  effects: Effect[];
  timersToArm: TimerToArm[];
  timersToCancel: string[];
  timers: Record<string, ArmedTimer>;
}

interface ActionLike {
  type: string;
  params?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The action the authoring kit's effect actions enqueue (`src/authoring/`): it names the effect and
 * carries the job id the kit assigned, so the job needs no id in the author's context.
 */
export const jobMarkerAction = 'warden.job';

/**
 * The effect was requested but `currentJobs` names no job for its operation: the chart requests it
 * without first writing the job id into the context. Says where and what to write.
 */
export function missingJobId(
  definition: Pick<WorkflowDefinition, 'id' | 'version'>,
  effect: string,
  operation: string,
  jobs: Readonly<Record<string, string | undefined>>,
): DefinitionError {
  const key = definitionKey(definition);
  const known = Object.keys(jobs).filter((op) => jobs[op]);
  return new DefinitionError(
    `${key}: the effect ${effect} runs the operation ${operation}, but currentJobs(context) has no job id for ${operation} when it is requested (it names ${known.join(', ') || 'none'}); write the id <workflowId>/${operation}/<attempt> into the context before ${effect}, in the same entry (entry: [assign the job id, '${effect}']), and return it from currentJobs under '${operation}'`,
    { definition: key, effect, operation, currentJobs: known },
  );
}

export function planCommands(
  definition: WorkflowDefinition,
  context: unknown,
  statePaths: readonly string[],
  actions: readonly ActionLike[],
  armedBefore: Readonly<Record<string, ArmedTimer>>,
  generation: number,
  now: number,
): PlannedCommands {
  const timers: Record<string, ArmedTimer> = { ...armedBefore };
  const arming = new Map<string, TimerToArm>();
  const cancelling = new Set<string>();
  const effects: Effect[] = [];
  const jobs = definition.currentJobs(context, statePaths);

  for (const action of actions) {
    const params = isRecord(action.params) ? action.params : {};
    if (action.type === 'xstate.raise') {
      if (typeof params.delay !== 'number') continue; // immediate raise: already processed
      const id = params.id;
      if (typeof id !== 'string') throw new DefinitionError('a delayed raise without an id can never be cancelled');
      if (!Number.isFinite(params.delay)) throw new DefinitionError(`delay of ${id} is not a number`, { id });
      const timer = { generation, dueAt: now + Math.max(0, params.delay) };
      if (id in armedBefore) cancelling.add(id);
      timers[id] = timer;
      arming.set(id, { id, ...timer, event: { type: id } });
    } else if (action.type === 'xstate.cancel') {
      const id = params.sendId;
      if (typeof id !== 'string') continue;
      Reflect.deleteProperty(timers, id);
      arming.delete(id);
      if (id in armedBefore) cancelling.add(id);
    } else if (action.type === jobMarkerAction) {
      const effect = params.effect;
      const spec =
        typeof effect === 'string' && Object.hasOwn(definition.effects, effect)
          ? definition.effects[effect]
          : undefined;
      if (!spec || typeof params.jobId !== 'string') {
        throw new DefinitionError(`${jobMarkerAction} names no effect of the definition`, { effect });
      }
      effects.push({
        type: effect as string,
        operation: spec.operation,
        jobId: params.jobId,
        params: spec.params(context),
      });
    } else {
      const spec = definition.effects[action.type];
      if (!spec) continue;
      const jobId = jobs[spec.operation];
      if (!jobId) throw missingJobId(definition, action.type, spec.operation, jobs);
      effects.push({ type: action.type, operation: spec.operation, jobId, params: spec.params(context) });
    }
  }
  return { effects, timersToArm: [...arming.values()], timersToCancel: [...cancelling], timers };
}
