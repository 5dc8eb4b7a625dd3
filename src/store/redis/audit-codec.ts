/**
 * How an audit entry is stored in its workflow's stream: JSON without what the key and the defaults
 * already say. The workflow id (the key names it) is dropped, ids under the workflow (`<id>/...`)
 * lose that prefix, the correlation id is dropped when it is the workflow id, and empty lists, an
 * absent guard and the `event` channel are omitted. Readable with `redis-cli XRANGE`, about half
 * the size, and decoded back to exactly the entry that was written.
 *
 * Entries written before this encoding (full JSON, with `workflowId`) still decode as they are, and
 * entries written before the reason, payload digest and artifact references were kept decode with
 * `null`, `null` and `[]`.
 */
import type { AuditActor, AuditEntry, ProposedBy } from '../../engine/decision.ts';

interface Compact {
  /** event id */ i: string;
  /** event type */ y: string;
  /** channel, when not `event` */ c?: AuditEntry['channel'];
  /** outcome, when not `accepted` */ o?: AuditEntry['outcome'];
  /** from */ f?: string[];
  /** to */ t?: string[];
  /** actor: id, kind, roles… */ a: string[];
  /** proposed by a model: its id, the proposal id, its version when given; absent when not proposed */ p?:
    [string, string] | [string, string, string];
  /** guard outcome, guards, failed checks; absent when no guard ran */ g?: [string, string[], string[]];
  /** reason, when there is one */ rs?: string;
  /** payload digest, when there is one: the hex of a `sha256:` digest, anything else escaped with `!` */ pd?: string;
  /** artifact references, ids under the workflow shortened as event ids are */ ar?: string[];
  /** causation id */ u?: string;
  /** correlation id, when not the workflow id (null kept) */ r?: string | null;
  /** definition */ d: string;
  /** version */ v: number;
  at: number;
  /** effects */ e?: string[];
  /** timers armed */ ta?: string[];
  /** timers cancelled */ tc?: string[];
}

/**
 * Ids under the workflow start with `/`; any other id that starts with `/` or `!` is escaped with
 * `!`, so decoding is never ambiguous.
 */
function shortId(workflowId: string, id: string): string {
  if (id.startsWith(`${workflowId}/`)) return id.slice(workflowId.length);
  return id.startsWith('/') || id.startsWith('!') ? `!${id}` : id;
}

function longId(workflowId: string, id: string): string {
  if (id.startsWith('/')) return `${workflowId}${id}`;
  return id.startsWith('!') ? id.slice(1) : id;
}

const nonEmpty = (list: string[]) => (list.length > 0 ? list : undefined);

function proposerOf({ model, proposalId }: ProposedBy): NonNullable<Compact['p']> {
  return model.version === undefined ? [model.id, proposalId] : [model.id, proposalId, model.version];
}

function proposedByOf([id, proposalId, version]: NonNullable<Compact['p']>): ProposedBy {
  return { kind: 'model', model: version === undefined ? { id } : { id, version }, proposalId };
}

const sha256Prefix = 'sha256:';

function shortDigest(digest: string): string {
  return digest.startsWith(sha256Prefix) ? digest.slice(sha256Prefix.length) : `!${digest}`;
}

const longDigest = (digest: string) => (digest.startsWith('!') ? digest.slice(1) : `${sha256Prefix}${digest}`);

/** An entry of any age with the fields added since: an older one has no reason, digest or references. */
function withEvidence(entry: Omit<AuditEntry, 'reason' | 'payloadDigest' | 'artifactRefs'> & Partial<AuditEntry>) {
  return {
    ...entry,
    reason: entry.reason ?? null,
    payloadDigest: entry.payloadDigest ?? null,
    artifactRefs: entry.artifactRefs ?? [],
  };
}

export function encodeAudit(entry: AuditEntry): string {
  const w = entry.workflowId;
  const guard = entry.guard;
  const plainGuard = guard.outcome === 'none' && guard.guards.length === 0 && guard.failedChecks.length === 0;
  const compact: Compact = {
    i: shortId(w, entry.eventId),
    y: entry.eventType,
    c: entry.channel === 'event' ? undefined : entry.channel,
    o: entry.outcome === 'accepted' ? undefined : entry.outcome,
    f: nonEmpty(entry.from),
    t: nonEmpty(entry.to),
    a: [entry.actor.id, entry.actor.kind, ...entry.actor.roles],
    p: entry.proposedBy ? proposerOf(entry.proposedBy) : undefined,
    g: plainGuard ? undefined : [guard.outcome, guard.guards, guard.failedChecks],
    rs: entry.reason ?? undefined,
    pd: entry.payloadDigest === null ? undefined : shortDigest(entry.payloadDigest),
    ar: nonEmpty(entry.artifactRefs.map((ref) => shortId(w, ref))),
    u: entry.causationId === null ? undefined : shortId(w, entry.causationId),
    r: entry.correlationId === w ? undefined : entry.correlationId,
    d: entry.definition,
    v: entry.version,
    at: entry.at,
    e: nonEmpty(entry.effects.map((id) => shortId(w, id))),
    ta: nonEmpty(entry.timersArmed),
    tc: nonEmpty(entry.timersCancelled),
  };
  return JSON.stringify(compact);
}

export function decodeAudit(workflowId: string, json: string): AuditEntry {
  const parsed = JSON.parse(json) as Compact | AuditEntry;
  if ('workflowId' in parsed) return withEvidence(parsed);
  const w = workflowId;
  const [actorId = '', kind = 'user', ...roles] = parsed.a;
  const [guardOutcome, guards, failedChecks] = parsed.g ?? ['none', [], []];
  return {
    workflowId: w,
    eventId: longId(w, parsed.i),
    eventType: parsed.y,
    channel: parsed.c ?? 'event',
    outcome: parsed.o ?? 'accepted',
    from: parsed.f ?? [],
    to: parsed.t ?? [],
    actor: { id: actorId, kind: kind as AuditActor['kind'], roles },
    ...(parsed.p ? { proposedBy: proposedByOf(parsed.p) } : {}),
    guard: { outcome: guardOutcome as AuditEntry['guard']['outcome'], guards, failedChecks },
    reason: parsed.rs ?? null,
    payloadDigest: parsed.pd === undefined ? null : longDigest(parsed.pd),
    artifactRefs: (parsed.ar ?? []).map((ref) => longId(w, ref)),
    causationId: parsed.u === undefined ? null : longId(w, parsed.u),
    correlationId: parsed.r === undefined ? w : parsed.r,
    definition: parsed.d,
    version: parsed.v,
    at: parsed.at,
    effects: (parsed.e ?? []).map((id) => longId(w, id)),
    timersArmed: parsed.ta ?? [],
    timersCancelled: parsed.tc ?? [],
  };
}
