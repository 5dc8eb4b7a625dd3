/**
 * Why a transition of the config is taken by no path: for want of a variant, mostly. For each one
 * not covered, every distinct state of the graph where its source node is active is asked what
 * became of its event there: never offered, refused before the chart (a role, a payload, a job),
 * refused by a guard (which, with the checks that failed), or taken by another transition first.
 * The author learns which fact — an example payload, a principal, a creation body — is missing.
 */
import type { AdjacencyValue } from 'xstate/graph';
import { activeNodePaths, guardPasses, stepCoverage, type ConfigTransition } from './coverage.ts';
import { applyWalkEvent, machineState, walkEvents, type Walkable, type WalkSnapshot } from './walk.ts';

export interface UncoveredTry {
  /** The state paths of the workflow where the event was tried. */
  state: string[];
  /** What became of it: `guard isCurrentStamp refused (failed: …)`, `refused before the chart: FORBIDDEN`… */
  outcome: string;
  /** The catalogue variants that met this outcome there. */
  variants: string[];
}

export interface UncoveredTransition {
  transition: string;
  /** The event it is taken on; null for an `always` transition. */
  event: string | null;
  guard: string | null;
  /** Kept on purpose as a safety net (the model's `defensiveTransitions`). */
  defensive: boolean;
  /** Why no path takes it, and what to add. */
  reason: string;
  /** By state where its event was tried (at most `triesShown`), what happened. */
  tried: UncoveredTry[];
}

const triesShown = 10;

const readsAfter =
  ', but passes on the context after the step: a guard runs before its transition’s actions, so it reads what this event brings from event.payload';

/** A variant the author gave as valid: `valid`, or an example `valid:<name>`. */
const isExample = (variant: string) => variant === 'valid' || variant.startsWith('valid:');

type Entry = AdjacencyValue<WalkSnapshot, WalkEvent>;
type WalkEvent = ReturnType<typeof walkEvents>[number];

function isActiveIn(walkable: Walkable, walk: WalkSnapshot, source: string): boolean {
  if (walk.record.status !== 'active') return false;
  return source === '' || activeNodePaths(machineState(walkable.definition, walk.record).snapshot).includes(source);
}

/** A refusal's message, with the payload's issues when it has them: `invalid APPROVE payload: nte: Unrecognized key…`. */
function refusalDetail(message: string, details: Record<string, unknown>): string {
  const issues = Array.isArray(details.issues) ? (details.issues as { path?: string; message?: string }[]) : [];
  const listed = issues.map((i) => (i.path ? `${i.path}: ${i.message ?? ''}` : (i.message ?? ''))).join('; ');
  return listed ? `${message}: ${listed}` : message;
}

/** Whether the transition's guard passes on the context the step left (false when it cannot say). */
function passesAfter(walkable: Walkable, step: ReturnType<typeof applyWalkEvent>, transition: ConfigTransition) {
  try {
    const after = machineState(walkable.definition, step.after.record).snapshot;
    return guardPasses(walkable.definition.machine, transition.definition, after, step.machineEvent);
  } catch {
    return false;
  }
}

/** What became of one catalogue event of the transition's type in one state. */
function outcomeOf(walkable: Walkable, walk: WalkSnapshot, event: WalkEvent, transition: ConfigTransition) {
  const step = applyWalkEvent(walkable, walk, event);
  const { decision } = step;
  if (decision.outcome === 'refused') {
    if (decision.code === 'GUARD_REJECTED' || (decision.code === 'STALE_JOB' && decision.details.guards)) {
      const guards = (decision.details.guards as string[] | undefined) ?? [];
      const failed = (decision.details.failedChecks as string[] | undefined) ?? [];
      const checks =
        failed.length > 0 && failed.join(',') !== guards.join(',') ? ` (failed: ${failed.join(', ')})` : '';
      return { chart: true, outcome: `guard ${guards.join(', ')} refused${checks}` };
    }
    if (decision.code === 'OUTCOME_UNPROVEN') {
      // The chart took it: the step would end the workflow without what its outcome proves.
      const { outcome, missing } = decision.details as { outcome?: string; missing?: string[] };
      return {
        chart: true,
        outcome: `ends ${outcome ?? 'the workflow'} without its proof: ${(missing ?? []).join(', ')}`,
      };
    }
    // An example of the author's refused here is a mistake in it (a misspelt field, say): say what.
    const why = isExample(event.variant) ? ` (${refusalDetail(decision.message, decision.details)})` : '';
    return { chart: false, outcome: `refused before the chart: ${decision.code}${why}` };
  }
  const machine = walkable.definition.machine;
  const before = machineState(walkable.definition, walk.record).snapshot;
  const taken = step.machineEvent
    ? stepCoverage(machine, before, step.machineEvent as { type: string }).transitions
    : [];
  const took = taken[0] ?? 'another transition';
  if (
    transition.guard &&
    step.machineEvent &&
    !guardPasses(machine, transition.definition, before, step.machineEvent)
  ) {
    // A guard reading what the step's own actions record sees the context before them: say so.
    const later = passesAfter(walkable, step, transition) ? readsAfter : '';
    return { chart: true, outcome: `guard ${transition.guard} refused (the event took ${took})${later}` };
  }
  return { chart: true, outcome: `taken by ${took} first` };
}

/** Explains each transition no path takes; `states` are the distinct states of the traversed graph. */
export function explainUncovered(
  walkable: Walkable,
  states: readonly Entry[],
  uncovered: readonly ConfigTransition[],
): UncoveredTransition[] {
  const defensive = new Set(walkable.paths.defensiveTransitions ?? []);
  return uncovered.map((transition) => {
    const base = {
      transition: transition.label,
      event: transition.eventType,
      guard: transition.guard,
      defensive: defensive.has(transition.label),
    };
    const where = transition.source || '(root)';
    if (transition.eventType === null || transition.eventType.startsWith('xstate.done.')) {
      const kind = transition.eventType === null ? 'eventless' : 'onDone';
      const reason = transition.guard
        ? `${kind}: its guard ${transition.guard} never held when ${where} was entered (or another came first)`
        : `${kind}: ${where} is never entered so that it applies (another transition comes first)`;
      return { ...base, reason, tried: [] };
    }
    const eventType = transition.eventType;
    const active = states.filter((entry) => isActiveIn(walkable, entry.state, transition.source));
    if (active.length === 0) {
      return { ...base, reason: `${where} is never active at rest in the graph`, tried: [] };
    }
    type Outcomes = Map<string, { chart: boolean; variants: string[] }>;
    const byState = new Map<string, { state: string[]; outcomes: Outcomes }>();
    for (const { state: walk } of active) {
      for (const event of walkEvents(walkable, walk).filter((e) => e.type === eventType)) {
        const { chart, outcome } = outcomeOf(walkable, walk, event, transition);
        const key = walk.record.statePaths.join(', ');
        const group = byState.get(key) ?? { state: walk.record.statePaths, outcomes: new Map() as Outcomes };
        byState.set(key, group);
        const seen = group.outcomes.get(outcome) ?? { chart, variants: [] };
        if (!seen.variants.includes(event.variant)) seen.variants.push(event.variant);
        group.outcomes.set(outcome, seen);
      }
    }
    if (byState.size === 0) {
      return {
        ...base,
        reason: `${eventType} is never offered where ${where} is active: add a variant of it (an example, or a body that leads there)`,
        tried: [],
      };
    }
    const tried: UncoveredTry[] = [];
    const guardRefusals = new Set<string>();
    const unproven = new Set<string>();
    const refusedExamples = new Set<string>();
    let reachedChart = false;
    for (const { state, outcomes } of byState.values()) {
      // Refusals before the chart are the refused variants' business, once one reached the chart;
      // not those of the author's examples, which were meant to reach it.
      const chartOutcomes = [...outcomes].filter(([, o]) => o.chart || o.variants.some(isExample));
      const shown = chartOutcomes.length > 0 ? chartOutcomes : [...outcomes];
      for (const [outcome, { chart, variants }] of shown) {
        if (chart) reachedChart = true;
        const guard = /^guard (.+?) refused/.exec(outcome)?.[1];
        if (guard) guardRefusals.add(guard);
        if (outcome.startsWith('ends ')) unproven.add(outcome);
        if (!chart) for (const variant of variants.filter(isExample)) refusedExamples.add(`${variant}: ${outcome}`);
        tried.push({ state, outcome, variants });
      }
    }
    const triedIn = [...byState.keys()].join('; ');
    let reason: string;
    if (unproven.size > 0) {
      // Before a guard's refusal: the variants a guard refused are the refused side of its checks,
      // and the one that passed them is the one that matters.
      reason = `${eventType} passed the guards but the step ${[...unproven].join('; ')} (${triedIn}): record what the outcome checks before it ends there (an update), or end elsewhere`;
    } else if (refusedExamples.size > 0) {
      reason = `the example meant to take it was refused (${[...refusedExamples].join('; ')}) (${triedIn}): correct it to a payload the schema of ${eventType} accepts`;
    } else if (guardRefusals.size > 0) {
      reason = tried.some((t) => t.outcome.endsWith(readsAfter))
        ? `guard ${[...guardRefusals].join(', ')} refused ${eventType} in every state where it was tried (${triedIn})${readsAfter}`
        : `guard ${[...guardRefusals].join(', ')} refused ${eventType} in every state where it was tried (${triedIn}): add an example (a payload, a principal or a body) that passes it`;
    } else if (!reachedChart) {
      reason = `every ${eventType} tried was refused before the chart (${triedIn}): give a valid example of it`;
    } else {
      reason = `another transition took ${eventType} first in every state where it was tried (${triedIn})`;
    }
    return { ...base, reason, tried: tried.slice(0, triesShown) };
  });
}
