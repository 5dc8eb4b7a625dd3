/**
 * The composition root: builds the store, the engine, the effect adapters and the runtime from a
 * configuration. Nothing else constructs them, so tests and the CLI build the same world.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.ts';
import { createRegistry, type WorkflowRegistry } from './definitions/registry.ts';
import type { AnyWorkflowBundle, PlatformAdapters } from './definitions/workflow.ts';
import { createEngine, type Engine } from './engine/engine.ts';
import { randomText } from './runtime/random-text.ts';
import type { EffectHandler, LocalRule, ModelClient, Notifier } from './effects/index.ts';
import { LocalModelClient, MemoryNotifier, OpenAIModelClient, RedisNotifier } from './effects/index.ts';
import {
  createLogger,
  createMetrics,
  engineMetricsObserver,
  observedModelClient,
  workerMetricsObserver,
  type Metrics,
} from './observability/index.ts';
import { createCommitFeed, type CommitWatch } from './runtime/commit-watch.ts';
import { createExternalJobs, externalQueues, type ExternalJobs } from './runtime/external-jobs.ts';
import { createRuntime, type Role, type Runtime } from './runtime/runner.ts';
import { MemoryJobQueue } from './store/memory/memory-job-queue.ts';
import { RedisJobQueue } from './store/redis/redis-job-queue.ts';
import { MemoryStore } from './store/memory/memory-store.ts';
import { closeClient, connectRedis, type RedisClient } from './store/redis/connect.ts';
import { describeRedisError } from './store/redis/probe.ts';
import { redactRedisUrl } from './store/redis/redact-url.ts';
import { createKeys } from './store/redis/keys.ts';
import { workflowKeys } from './effects/redis-keys.ts';
import { cryptoSha256Hex } from './effects/canonical-json.ts';
import { RedisStore } from './store/redis/redis-store.ts';
import type { WorkflowStore } from './engine/store-port.ts';

export interface System {
  config: Config;
  /** The registered workflows. */
  registry: WorkflowRegistry;
  store: WorkflowStore;
  engine: Engine;
  /** The adapters each workflow built for itself, by workflow id (its provider, its account service...). */
  adapters: ReadonlyMap<string, object>;
  notifier: Notifier;
  logger: Logger;
  /** This system's Prometheus metrics (its own registry). */
  metrics: Metrics;
  /** Builds the runtime for these roles (not started). */
  runtime(roles: ReadonlySet<Role>): Runtime;
  /** The job API's side of external workers (claim, heartbeat, complete, fail). */
  externalJobs: ExternalJobs;
  /**
   * Subscribes to the store's wake-up messages (`<shard>:<kinds>[:<due>]`, and `*` when some may
   * have been lost); returns the unsubscribe. A runtime holds one.
   */
  /** Wake-ups for what `roles` waits for (default both): jobs queued, timers armed. */
  subscribeWakeUps(
    onWake: (message: string) => void,
    roles?: { jobs: boolean; timers: boolean },
  ): Promise<() => Promise<void>>;
  /**
   * Waits for a workflow's next commit, woken by the store's commit notices (subscribed at the first
   * wait, closed with the system): long-polled views and event streams use it instead of polling.
   */
  commits: CommitWatch;
  close(): Promise<void>;
}

export interface SystemOptions {
  /** The workflows to run: the plug-in bundles (`machines/index.ts` lists this project's). */
  definitions: readonly AnyWorkflowBundle[];
  clock?: () => number;
  logger?: Logger;
  /** A unique name for this process (lease owner, consumer). */
  owner?: string;
  /** Wraps the store (instrumentation, fault injection in tests). */
  decorateStore?: (store: WorkflowStore) => WorkflowStore;
  /** Wraps the adapters a workflow built (instrumentation, fault injection in tests). */
  decorateAdapters?: (workflowId: string, adapters: object) => object;
  /** Replaces the configured model (tests). */
  model?: ModelClient;
}

export const newId = (): string => randomText(12).replace(/-/g, '_');

/**
 * The queues `WARDEN_EXTERNAL_EFFECTS` names, checked against the registered effects: an unknown one
 * is a configuration error (the CLI says it in one line and exits 2), not a crash with a stack.
 */
function externalQueuesOf(config: Config, registry: WorkflowRegistry): Set<string> {
  try {
    return externalQueues(
      config.WARDEN_EXTERNAL_EFFECTS,
      new Map(registry.bundles.map((b) => [b.id, Object.keys(b.handlers)])),
    );
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

export function createSystem(config: Config, options: SystemOptions): System {
  const registry = createRegistry(options.definitions);
  const clock = options.clock ?? (() => Date.now());
  const logger = options.logger ?? createLogger(config);
  // Assigned below, before any scrape can happen.
  let stalledIn: WorkflowStore | null = null;
  // Each definition's queue states (as its definition lists its queues): what the queue metrics
  // are kept for, so their labels are bounded. Read on every decided event by the metrics observer.
  const queueStates = new Map(registry.bundles.map((b) => [b.id, b.queues.map((q) => q.state)]));
  const queues = [...queueStates].flatMap(([definitionId, states]) =>
    states.map((statePath) => ({ definitionId, statePath })),
  );
  const metrics = createMetrics({
    countStuck: async () => {
      const store = stalledIn;
      if (!store) return 0;
      const counts = await Promise.all(
        Array.from({ length: store.shards }, (_, shard) => store.countStalled(shard, 2 * config.WARDEN_JOB_LEASE_MS)),
      );
      return counts.reduce((a, b) => a + b, 0);
    },
    countQueues: async () => {
      const counts = (await stalledIn?.countByState(queues)) ?? [];
      return queues.map((q, i) => ({ definition: q.definitionId, state: q.statePath, count: counts[i] ?? 0 }));
    },
    renderMaxAgeMs: config.WARDEN_METRICS_CACHE_MS,
    eventLoopMonitor: config.WARDEN_EVENT_LOOP_MONITOR,
    clock,
  });
  const owner = options.owner ?? `${hostname()}-${process.pid}-${newId().slice(0, 6)}`;
  let client: RedisClient | null = null;
  let store: WorkflowStore;
  let notifier: Notifier;
  let memory: MemoryStore | null = null;

  if (config.REDIS_URL) {
    client = connectRedis({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER, name: `warden:${owner}` });
    logConnectionLoss(client, logger, redactRedisUrl(config.REDIS_URL));
    store = new RedisStore(client, {
      prefix: config.WARDEN_PREFIX,
      shards: config.WARDEN_SHARDS,
      recordCache: config.WARDEN_RECORD_CACHE,
      archiveFormat: config.WARDEN_ARCHIVE_FORMAT,
    });
    notifier = new RedisNotifier(client, { prefix: config.WARDEN_PREFIX });
  } else {
    memory = new MemoryStore({ shards: config.WARDEN_SHARDS, clock });
    store = memory;
    notifier = new MemoryNotifier();
    logger.warn('no REDIS_URL: using the in-memory store; nothing survives a restart');
  }

  if (options.decorateStore) store = options.decorateStore(store);
  stalledIn = store;
  const localRules: Record<string, LocalRule> = {};
  for (const bundle of registry.bundles) Object.assign(localRules, bundle.localModel ?? {});
  const model =
    options.model ??
    (config.WARDEN_MODEL === 'openai'
      ? new OpenAIModelClient({
          baseUrl: config.OPENAI_BASE_URL,
          model: config.OPENAI_MODEL,
          apiKey: config.OPENAI_API_KEY ?? '',
          timeoutMs: config.WARDEN_EFFECT_TIMEOUT_MS,
        })
      : new LocalModelClient(localRules));
  const platform: Omit<PlatformAdapters, 'key'> = {
    model: observedModelClient(model, { metrics, clock }),
    notifier,
    clock,
    timeoutMs: () => config.WARDEN_EFFECT_TIMEOUT_MS,
    redis: client,
    prefix: config.WARDEN_PREFIX,
  };
  const adapters = new Map<string, object>();
  /** Handlers by workflow id, then effect type. */
  const handlers = new Map<string, Readonly<Record<string, EffectHandler>>>();
  for (const bundle of registry.bundles) {
    const its: PlatformAdapters = { ...platform, key: workflowKeys(config.WARDEN_PREFIX, bundle.id) };
    let own = (bundle.adapters?.(its) ?? {}) as object;
    if (options.decorateAdapters) own = options.decorateAdapters(bundle.id, own);
    adapters.set(bundle.id, own);
    const deps = { ...its, ...own };
    handlers.set(
      bundle.id,
      Object.fromEntries(Object.entries(bundle.handlers).map(([type, factory]) => [type, factory(deps)])),
    );
  }
  const engine = createEngine({
    store,
    definitions: registry,
    clock,
    newId,
    observer: engineMetricsObserver(metrics, (id) => queueStates.get(id) ?? []),
    sha256: cryptoSha256Hex,
  });
  const externalJobs = createExternalJobs({
    engine,
    store,
    queue: client ? new RedisJobQueue(client, { prefix: config.WARDEN_PREFIX }) : new MemoryJobQueue(),
    handlers: (definitionId) => handlers.get(definitionId),
    clock,
    queues: externalQueuesOf(config, registry),
  });

  /** The pub/sub channels of the Redis store: wake-ups and commit notices. */
  const channels = createKeys({ prefix: config.WARDEN_PREFIX, shards: config.WARDEN_SHARDS });
  // The memory store calls one listener: it fans out to every runtime subscribed in this process.
  const memoryListeners = new Set<(message: string) => void>();
  const subscribeWakeUps = async (
    onWake: (message: string) => void,
    roles = { jobs: true, timers: true },
  ): Promise<() => Promise<void>> => {
    if (memory) {
      const local = memory;
      memoryListeners.add(onWake);
      local.onWake = (message) => {
        for (const listener of memoryListeners) listener(message);
      };
      return () => {
        memoryListeners.delete(onWake);
        if (memoryListeners.size === 0) local.onWake = null;
        return Promise.resolve();
      };
    }
    if (!client) return () => Promise.resolve();
    // Pub/sub needs a connection of its own.
    const subscriber = 'nodes' in client ? client.duplicate() : client.duplicate();
    // For one release, the bare channel as well: during a rolling upgrade the previous version's
    // processes still publish there (`<shard>:<kinds>[:<due>]`, the kinds in the message, handled as
    // any other). To drop once no process of that version can be running (docs/operations.md).
    const kinded = channels.wakeChannels(roles);
    const wanted = kinded.length > 0 ? [...kinded, channels.wakeChannel] : kinded;
    subscriber.on('message', (_channel: string, message: string) => {
      onWake(message);
    });
    // Redis being down is the main connection's to report; this one reconnects by itself.
    subscriber.on('error', () => undefined);
    rescanOnReconnect(subscriber, () => subscriber.subscribe(...wanted), onWake);
    await subscriber.subscribe(...wanted);
    return async () => {
      await subscriber.quit();
    };
  };

  let commitSubscriber: RedisClient | null = null;
  const commitFeed = createCommitFeed((feed) => {
    if (memory) {
      memory.onCommit = (workflowId, version) => {
        feed.notify(`${workflowId} ${version}`);
      };
      return;
    }
    if (!client) return;
    const subscriber = 'nodes' in client ? client.duplicate() : client.duplicate();
    commitSubscriber = subscriber;
    const channel = channels.commitChannel;
    subscriber.on('message', (_channel: string, message: string) => {
      feed.notify(message);
    });
    // Redis being down is the main connection's to report; this one reconnects by itself.
    subscriber.on('error', () => undefined);
    // Subscribed at every `ready`, the first included: a subscription that failed (Redis down at the
    // first wait) is made at the next one, which the client would not renew by itself. Every waiter
    // then reads again: what was committed while no subscription stood is read now.
    const rescan = () => {
      feed.notify('*');
    };
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(rescan, rescan);
    });
  });

  return {
    config,
    registry,
    store,
    engine,
    commits: commitFeed.watch,
    adapters,
    notifier,
    logger,
    metrics,
    subscribeWakeUps,
    externalJobs,
    runtime: (roles) =>
      createRuntime({
        store,
        engine,
        handlers: (definitionId) => handlers.get(definitionId),
        roles,
        owner,
        clock,
        leaseMs: config.WARDEN_LEASE_MS,
        jobLeaseMs: config.WARDEN_JOB_LEASE_MS,
        archiveAfterMs: config.WARDEN_ARCHIVE_AFTER_MS,
        pollMs: config.WARDEN_POLL_MS,
        idlePollMs: config.WARDEN_IDLE_POLL_MS,
        workerConcurrency: config.WARDEN_WORKER_CONCURRENCY,
        timerSafetyPollMs: config.WARDEN_TIMER_POLL_MS,
        timerRescanMs: config.WARDEN_TIMER_RESCAN_MS,
        subscribeWakeUps,
        observer: workerMetricsObserver(metrics, { prices: config.WARDEN_MODEL_PRICES }),
        logger,
        external: externalJobs.external,
      }),
    close: async () => {
      if (commitSubscriber) await closeClient(commitSubscriber);
      if (client) await closeClient(client);
    },
  };
}

/**
 * Logs a lost connection to Redis once, and its return: ioredis reconnects by itself, emitting an
 * error at every attempt (each printed with a stack on stderr when nothing listens). What failed
 * meanwhile is logged by whoever ran it (a worker's loop, a request).
 */
export function logConnectionLoss(
  client: {
    on(event: 'error', listener: (error: unknown) => void): unknown;
    on(event: 'ready', listener: () => void): unknown;
  },
  logger: Pick<Logger, 'warn' | 'info'>,
  url: string,
): void {
  let down = false;
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    logger.warn({ redis: url, err: error }, `Redis at ${url} unreachable (${describeRedisError(error)}): retrying`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ redis: url }, `Redis at ${url} answers again`);
  });
}

/**
 * When the wake-up subscription's connection is ready again after a disconnect, what was published
 * meanwhile is lost: once subscribed again (the client subscribes again by itself, but only after
 * `ready`; subscribing twice is harmless), every loop is told to read everything once (`*`).
 */
export function rescanOnReconnect(
  subscriber: { on(event: 'ready', listener: () => void): unknown },
  subscribe: () => Promise<unknown>,
  onWake: (message: string) => void,
): void {
  let connected = false;
  subscriber.on('ready', () => {
    if (connected) {
      const rescan = () => {
        onWake('*');
      };
      subscribe().then(rescan, rescan);
    }
    connected = true;
  });
}
