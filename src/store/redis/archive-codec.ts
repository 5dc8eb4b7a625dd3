/**
 * The archive of a finished workflow: its record, its audit trail (with the stream ids, so audit
 * cursors stay valid), its event outcomes and its artifacts, as one compressed JSON document.
 * The first byte is the format; a record stored as JSON starts with `{`, never with one of them.
 *
 *   1  raw deflate of `JSON.stringify(archive)`, the stored audit entries, outcomes and artifacts
 *      as JSON strings inside it (written by every version before format 2; still read).
 *   2  raw deflate with a preset dictionary (`archive-dictionary.ts`) of the same document, each
 *      stored string kept as the JSON value it holds (no escaped quotes) when that value gives back
 *      exactly the same string; any other string (written by another encoder, or not JSON) is kept
 *      as it is; and the outcome of an accepted event left out when its audit entry says it (see
 *      `saidByEntry`). Decoding gives back every stored string byte for byte.
 *
 * A format, once written, is read forever: a new layout or dictionary is a new format byte.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { WorkflowRecord } from '../../engine/decision.ts';
import { archiveDictionaryV2 } from './archive-dictionary.ts';

/** The format `encodeArchive` writes unless told another. */
export const ARCHIVE_FORMAT = 2;

/** The formats `encodeArchive` can write (and `decodeArchive` reads). */
export type ArchiveFormat = 1 | 2;

export interface Archive {
  record: WorkflowRecord;
  /** [stream id, stored audit entry JSON], oldest first. */
  audit: [string, string][];
  /** event id → stored outcome JSON */
  outcomes: Record<string, string>;
  /** artifact id → stored artifact JSON */
  artifacts: Record<string, string>;
}

/** A stored string in a format-2 document: the value it holds, or the string itself (see `keep`). */
type Kept = unknown;

interface DocumentV2 {
  record: WorkflowRecord;
  audit: [string, Kept][];
  /** Positions in `audit` of the entries whose event's outcome is the one they say, left out of `outcomes`. */
  said: number[];
  outcomes: Record<string, Kept>;
  artifacts: Record<string, Kept>;
}

/**
 * The deepest nesting a stored string is kept as a value with (Warden's own JSON nests far less:
 * artifact content hashes at most 64 levels). `JSON.stringify` recurses: a value nested some
 * thousands deep throws, and one just below that would be written by the janitor but not read back
 * from a deeper stack (a request's). Any string nested deeper is kept as the string.
 */
const keptDepth = 128;

/** Does JSON text `json` nest arrays and objects at most `most` deep (brackets in strings aside)? */
function nestsAtMost(json: string, most: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < json.length; at++) {
    const code = json.charCodeAt(at);
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (code === 0x5c) at++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > most) return false;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return true;
}

/**
 * The value a stored string holds when it is JSON that `JSON.stringify` writes back exactly (what
 * Warden writes), nested at most `keptDepth` deep, else the string. A string value is kept as the
 * string: `"…"` is stored as `"\"…\""`, so a string in the document always means the stored string itself.
 * Which strings are kept as values is the encoder's choice: the decoder reads either.
 */
function keep(stored: string): Kept {
  if (!nestsAtMost(stored, keptDepth)) return stored;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return stored;
  }
  return typeof value !== 'string' && JSON.stringify(value) === stored ? value : stored;
}

const restore = (kept: Kept): string => (typeof kept === 'string' ? kept : JSON.stringify(kept));

/** The same keys, own data properties (an id such as `__proto__` stays an id), the values mapped. */
const mapValues = <A, B>(record: Record<string, A>, map: (value: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/**
 * The event id and the stored outcome that a kept audit entry says, when it is an accepted event's
 * compact entry (`audit-codec.ts`): the id as the codec writes it (`/…` under the workflow, `!`
 * escaped), and the outcome as the commit stores it, `{"outcome":"accepted","version":v,"statePaths":to}`.
 * Part of format 2: it never changes.
 */
function saidByEntry(workflowId: string, entry: Kept): [eventId: string, outcome: string] | null {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || 'workflowId' in entry) return null;
  const { i, o, v, t } = entry as { i?: unknown; o?: unknown; v?: unknown; t?: unknown };
  if (typeof i !== 'string' || o !== undefined || typeof v !== 'number' || !(t === undefined || Array.isArray(t))) {
    return null;
  }
  const eventId = i.startsWith('/') ? `${workflowId}${i}` : i.startsWith('!') ? i.slice(1) : i;
  return [eventId, JSON.stringify({ outcome: 'accepted', version: v, statePaths: t ?? [] })];
}

/**
 * `archive` in `format`: 2 by default; 1 while processes of a version before format 2 still run (or
 * may be rolled back to), since they read format 1 only (`WARDEN_ARCHIVE_FORMAT`).
 */
export function encodeArchive(archive: Archive, format: ArchiveFormat = ARCHIVE_FORMAT): Buffer {
  if (format === 1) return Buffer.concat([Buffer.of(1), deflateRawSync(JSON.stringify(archive))]);
  const audit = archive.audit.map(([id, entry]): [string, Kept] => [id, keep(entry)]);
  const said: number[] = [];
  const leftOut = new Set<string>();
  audit.forEach(([, entry], at) => {
    const [eventId, outcome] = saidByEntry(archive.record.workflowId, entry) ?? [];
    if (eventId === undefined || leftOut.has(eventId) || !Object.hasOwn(archive.outcomes, eventId)) return;
    if (archive.outcomes[eventId] !== outcome) return;
    said.push(at);
    leftOut.add(eventId);
  });
  const outcomes = Object.entries(archive.outcomes).filter(([eventId]) => !leftOut.has(eventId));
  const document: DocumentV2 = {
    record: archive.record,
    audit,
    said,
    outcomes: Object.fromEntries(outcomes.map(([eventId, outcome]) => [eventId, keep(outcome)])),
    artifacts: mapValues(archive.artifacts, keep),
  };
  const deflated = deflateRawSync(JSON.stringify(document), { dictionary: archiveDictionaryV2 });
  return Buffer.concat([Buffer.of(2), deflated]);
}

const formats: readonly number[] = [1, ARCHIVE_FORMAT];

export function isArchive(stored: Buffer): boolean {
  return stored.length > 0 && formats.includes(stored[0] as number);
}

/** The document an archive holds, as it was written: format 1's is the archive itself. */
function documentOf(stored: Buffer): { format: 1; document: Archive } | { format: 2; document: DocumentV2 } {
  switch (stored[0]) {
    case 1:
      return { format: 1, document: JSON.parse(inflateRawSync(stored.subarray(1)).toString('utf8')) as Archive };
    case 2: {
      const json = inflateRawSync(stored.subarray(1), { dictionary: archiveDictionaryV2 }).toString('utf8');
      return { format: 2, document: JSON.parse(json) as DocumentV2 };
    }
    default:
      throw new Error(`unknown archive format ${String(stored[0])}`);
  }
}

/** The archive's record alone (what a load reads): its stored strings are not written back. */
export const archivedRecord = (stored: Buffer): WorkflowRecord => documentOf(stored).document.record;

export function decodeArchive(stored: Buffer): Archive {
  const { format, document } = documentOf(stored);
  if (format === 1) return document;
  const workflowId = document.record.workflowId;
  const said = document.said.map((at) => {
    const pair = saidByEntry(workflowId, document.audit[at]?.[1]);
    if (!pair) throw new Error(`archive of ${workflowId}: its entry ${at} says no outcome`);
    return pair;
  });
  return {
    record: document.record,
    audit: document.audit.map(([id, entry]) => [id, restore(entry)]),
    outcomes: Object.fromEntries([...said, ...Object.entries(mapValues(document.outcomes, restore))]),
    artifacts: mapValues(document.artifacts, restore),
  };
}

/**
 * `read` of a workflow's stored archive, or an error that names the workflow: a corrupt archive
 * (cut short, not deflate, a document that does not hold together) fails each read of it alike,
 * with the workflow to look for in the log, never only zlib's `unexpected end of file`.
 */
export function readArchive<T>(workflowId: string, stored: Buffer, read: (stored: Buffer) => T): T {
  try {
    return read(stored);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the archive of workflow ${workflowId} is unreadable: ${reason}`, { cause: error });
  }
}
