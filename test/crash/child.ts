/**
 * A Warden process for the crash tests, configured by the environment like the real one.
 *
 * CRASH_MODE=serve                 workers and timers until SIGTERM (graceful stop, exit 0)
 * CRASH_MODE=after-refund          as serve, but SIGKILL itself right after the provider made a refund
 * CRASH_MODE=before-commit         apply CRASH_EVENT (JSON) to CRASH_WORKFLOW and SIGKILL itself
 *                                  after deciding, before committing
 */
import { applyAs } from '../support/job-results.ts';
import { workflows } from '../../machines/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createSystem } from '../../src/system.ts';
import type { ActionProvider, SupportAdapters } from '../../machines/support/effects/index.ts';
import type { WorkflowStore } from '../../src/engine/store-port.ts';

const mode = process.env.CRASH_MODE ?? 'serve';
const die = () => process.kill(process.pid, 'SIGKILL');

const decorateActions = (actions: ActionProvider): ActionProvider =>
  mode !== 'after-refund'
    ? actions
    : {
        execute: async (...args) => {
          await actions.execute(...args);
          die();
          return new Promise(() => undefined);
        },
        reconcile: (...args) => actions.reconcile(...args),
        fence: (...args) => actions.fence(...args),
        compensate: (...args) => actions.compensate(...args),
      };

const decorateStore = (store: WorkflowStore): WorkflowStore =>
  mode !== 'before-commit'
    ? store
    : new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'commit') {
            return () => {
              die();
              return new Promise(() => undefined);
            };
          }
          return Reflect.get(target, property, receiver) as unknown;
        },
      });

const decorateAdapters = (workflowId: string, adapters: object): object => {
  if (workflowId !== 'support') return adapters;
  const own = adapters as SupportAdapters;
  return { ...own, actions: decorateActions(own.actions) };
};

const system = createSystem(loadConfig(), {
  definitions: workflows,
  decorateAdapters,
  decorateStore,
  owner: `crash-${mode}-${process.pid}`,
});

if (mode === 'before-commit') {
  const event = JSON.parse(process.env.CRASH_EVENT ?? '{}') as { type: string; eventId: string; payload: unknown };
  await applyAs(system.engine, process.env.CRASH_WORKFLOW ?? '', event, {
    id: 'crash-worker',
    tenantId: 'system',
    kind: 'service',
    roles: ['worker'],
  });
  throw new Error('the commit should not have been reached');
}

const runtime = system.runtime(new Set(['worker', 'timers']));
await runtime.start();
process.send?.('ready');
process.on('SIGTERM', () => {
  void runtime
    .stop()
    .then(() => system.close())
    .then(() => process.exit(0));
});
