/**
 * Every Redis key Warden uses, built in one place.
 *
 * A workflow id carries its shard (`s017-...`). Every key of a workflow and of its shard (outbox
 * stream, timer set, state indexes, de-duplication keys) carries the same hash tag `{s017}`, so each
 * Lua script touches one slot and the same scripts run on Redis Cluster.
 */
import { shardForDedupKey, shardLabel, shardOf } from '../../engine/shards.ts';

export interface KeySpace {
  /** Namespace of every key, e.g. `warden` (tests use a fresh prefix each). */
  prefix: string;
  /** Number of shards; fixed for the life of a deployment. */
  shards: number;
  /**
   * Redis Cluster: keys of one script must share a slot, so the state indexes are kept per shard
   * (and a queue page merges them). On one Redis node they are one per tenant, definition and state.
   */
  cluster?: boolean;
}

/** Index and de-duplication keys embed user strings; encode them so no separator or brace leaks in. */
const encode = (text: string): string => encodeURIComponent(text);

/** How many encoded strings `createKeys` keeps (tenants, definitions, state paths, roles); then it starts again. */
const encodedKept = 4096;

/** A literal for a SCAN pattern: the prefix may hold glob characters. */
const glob = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

export function createKeys(space: KeySpace) {
  // Every commit names its tenant's, definition's and states' index keys: the same few strings,
  // each encoded once (a lone surrogate still throws, as it is never kept). Ids met once (an
  // artifact's, a job's, a de-duplication key) are encoded each time, not kept.
  const encoded = new Map<string, string>();
  const part = (text: string): string => {
    let known = encoded.get(text);
    if (known === undefined) {
      known = encode(text);
      if (encoded.size >= encodedKept) encoded.clear();
      encoded.set(text, known);
    }
    return known;
  };
  const tags: string[] = [];
  const tag = (shard: number) => (tags[shard] ??= `${space.prefix}:{${shardLabel(shard)}}`);
  /** A key of each shard, each built once: the idle loops name every leased shard's keys again and again. */
  const ofShard = (suffix: string) => {
    const built: string[] = [];
    return (shard: number) => (built[shard] ??= `${tag(shard)}:${suffix}`);
  };
  const forWorkflow = (workflowId: string) => {
    const shard = shardOf(workflowId);
    if (shard === null || shard >= space.shards) throw new Error(`not a workflow id of this deployment: ${workflowId}`);
    return tag(shard);
  };
  return {
    space,
    /** Hash: version, record JSON, tenant, state paths. */
    workflow: (id: string) => `${forWorkflow(id)}:wf:${id}`,
    /** SCAN pattern of every workflow's hash (`workflow(id)`), and the workflow id a matching key names. */
    workflows: {
      pattern: `${glob(space.prefix)}:{s*}:wf:*`,
      idOf: (key: string): string | null => /^\{s\d+\}:wf:(.+)$/.exec(key.slice(space.prefix.length + 1))?.[1] ?? null,
    },
    /** Hash: event id → recorded outcome JSON. */
    events: (id: string) => `${forWorkflow(id)}:ev:${id}`,
    /** Stream: the workflow's audit trail. */
    audit: (id: string) => `${forWorkflow(id)}:audit:${id}`,
    /** String: an artifact's JSON, in its workflow's shard. */
    artifact: (workflowId: string, artifactId: string) =>
      `${forWorkflow(workflowId)}:art:${workflowId}:${encode(artifactId)}`,
    /** Set: the ids of a workflow's artifacts, so its archive can take them in. */
    artifactIds: (workflowId: string) => `${forWorkflow(workflowId)}:arts:${workflowId}`,
    /** Stream with one consumer group: jobs and timer firings of the shard. */
    outbox: ofShard('outbox'),
    /** Stream: entries no worker could process, with the reason, for operators. */
    deadLetters: (shard: number) => `${tag(shard)}:deadletter`,
    /** List: the ids of the workflow's dead letters (in its shard's `deadLetters`), newest first, the last few. */
    workflowDeadLetters: (workflowId: string) => `${forWorkflow(workflowId)}:dl:${workflowId}`,
    /**
     * Sorted set: a tenant's dead letters, `<shard> <dead letter id>` scored by when they were given
     * up. One per tenant on a single node; one per shard and tenant on a cluster (in the shard's
     * slot, so the dead-letter script writes it), merged by a page.
     */
    tenantDeadLetters: (shard: number, tenantId: string) =>
      `${space.cluster ? tag(shard) : space.prefix}:incidents:${part(tenantId)}`,
    /** Sorted set: `<workflowId> <timerId>` scored by due time. */
    timers: ofShard('timers'),
    /** Hash: `<workflowId> <timerId>` → generation. */
    timerGenerations: (shard: number) => `${tag(shard)}:timergen`,
    /** Sorted set: workflows of the shard finished and not yet archived, scored by when they finished. */
    finished: ofShard('finished'),
    /**
     * Sorted set: workflows of a tenant and definition (every version) in a state, scored by when
     * they entered it: a queue. One per tenant, definition and state on a single node, so a queue
     * page is one range read; one per shard on a cluster. A workflow never changes definition (only
     * version), so the commit script always leaves the index it entered.
     */
    stateIndex: (shard: number, tenantId: string, definitionId: string, statePath: string) =>
      `${space.cluster ? tag(shard) : space.prefix}:queue:${part(tenantId)}:${part(definitionId)}:${part(statePath)}`,
    /**
     * Sorted set: a tenant's workflows of one definition (every version) and status, scored by when
     * they were created: the workflow list, read newest first. Kept by the script that writes the
     * record (a creation enters it, a change of status moves the entry); an archived workflow stays.
     * One per tenant, definition and status on a single node; one per shard on a cluster.
     */
    workflowList: (shard: number, tenantId: string, definitionId: string, status: string) =>
      `${space.cluster ? tag(shard) : space.prefix}:list:${part(tenantId)}:${part(definitionId)}:${part(status)}`,
    /**
     * SCAN pattern of every `stateIndex` key, and what a key names (null for a key of another
     * layout): `warden reindex` rebuilds `queueCounts` from them.
     */
    stateIndexes: {
      pattern: space.cluster ? `${glob(space.prefix)}:{s*}:queue:*` : `${glob(space.prefix)}:queue:*`,
      parse: (key: string): { shard: number | null; definitionId: string; statePath: string } | null => {
        if (!key.startsWith(`${space.prefix}:`)) return null;
        const match = /^(?:\{s(\d+)\}:)?queue:[^:{}]*:([^:{}]*):([^:{}]*)$/.exec(key.slice(space.prefix.length + 1));
        if (!match || (match[1] === undefined) === !!space.cluster) return null;
        try {
          return {
            shard: match[1] === undefined ? null : Number(match[1]),
            definitionId: decodeURIComponent(match[2] ?? ''),
            statePath: decodeURIComponent(match[3] ?? ''),
          };
        } catch {
          return null; // not percent-encoding Warden wrote
        }
      },
    },
    /**
     * Hash: `queueCountField(definition, state path)` → how many workflows the `stateIndex` sets of
     * that definition and state hold, every tenant together. Kept by the scripts that write the
     * indexes, in the same script and only when an index changed, so it is exact however often a
     * write is retried; a metric reads it without knowing the tenants. Beside the indexes: in each
     * shard's slot on a cluster (one per shard), one for the deployment on a single node.
     */
    queueCounts: (shard: number) => `${space.cluster ? tag(shard) : space.prefix}:depth`,
    /** A field of `queueCounts`. */
    queueCountField: (definitionId: string, statePath: string) => `${part(definitionId)}:${part(statePath)}`,
    /**
     * The state indexes of earlier versions, per tenant and state only (`<prefix>:idx:<tenant>:<state>`,
     * or per shard `<prefix>:{s017}:idx:<tenant>:<state>`): SCAN patterns, and what a key names
     * (null for a key of another layout). `warden reindex` moves their entries into `stateIndex`.
     */
    legacyStateIndex: {
      patterns: [`${glob(space.prefix)}:idx:*`, `${glob(space.prefix)}:{s*}:idx:*`],
      parse: (key: string): { tenantId: string; statePath: string } | null => {
        if (!key.startsWith(`${space.prefix}:`)) return null;
        const match = /^(?:\{s\d+\}:)?idx:([^:{}]*):([^:{}]*)$/.exec(key.slice(space.prefix.length + 1));
        if (!match) return null;
        try {
          return { tenantId: decodeURIComponent(match[1] ?? ''), statePath: decodeURIComponent(match[2] ?? '') };
        } catch {
          return null; // not percent-encoding Warden wrote
        }
      },
    },
    /** String: the workflow created for (tenant, de-duplication key); lives in the shard the key hashes to. */
    dedup: (tenantId: string, key: string) =>
      `${tag(shardForDedupKey(tenantId, key, space.shards))}:dedup:${part(tenantId)}:${encode(key)}`,
    /** Hash: the lease on one job (token, owner, expiry), in its workflow's shard. */
    jobLease: (workflowId: string, jobId: string) => `${forWorkflow(workflowId)}:joblease:${encode(jobId)}`,
    /** The external workers' job queues: every key in the one slot `{jobs}`, so a claim is one script. */
    jobQueue: {
      /** Hash: job id → JSON `{ queue, message, tenantId }`. */
      jobs: `${space.prefix}:{jobs}:job`,
      /** Hash: job id → the tenant of its workflow (what a tenant's claim filters on). */
      tenants: `${space.prefix}:{jobs}:tenant`,
      /** Hash: job id → times claimed. */
      deliveries: `${space.prefix}:{jobs}:deliveries`,
      /** Sorted set: a queue's jobs ready to claim, scored by when they are ready. */
      ready: (queue: string) => `${space.prefix}:{jobs}:ready:${part(queue)}`,
      /** Sorted set: a queue's claimed jobs, scored by the end of their claim. */
      claimed: (queue: string) => `${space.prefix}:{jobs}:claimed:${part(queue)}`,
    },
    /**
     * Pub/sub channels, by what a commit queued (the message is the shard): jobs (`…:j`), timers
     * armed (`…:t`) or both (`…:jt`), so that a process hears only what its roles wait for — a
     * timers process no job wake-ups. The scripts are handed the base and add the kinds.
     */
    wakeChannel: `${space.prefix}:timers:wake`,
    /** The wake-up channels a process with these roles subscribes to. */
    wakeChannels: (roles: { jobs: boolean; timers: boolean }): string[] => [
      ...(roles.jobs ? [`${space.prefix}:timers:wake:j`] : []),
      ...(roles.timers ? [`${space.prefix}:timers:wake:t`] : []),
      ...(roles.jobs || roles.timers ? [`${space.prefix}:timers:wake:jt`] : []),
    ],
    /** Pub/sub channel: a workflow's version was committed (the message is `<workflow id> <version>`). */
    commitChannel: `${space.prefix}:commits`,
    /**
     * Sorted set of the live processes of `role`, scored by last heartbeat: the shards' assignment.
     * Not the `…:processes:<role>` of the versions with a lease per shard, so that old and new
     * processes of a rolling upgrade each cover every shard rather than leave some to the other.
     */
    processes: (role: string) => `${space.prefix}:live:${part(role)}`,
  };
}

export type Keys = ReturnType<typeof createKeys>;

export const timerMember = (workflowId: string, timerId: string) => `${workflowId} ${timerId}`;
