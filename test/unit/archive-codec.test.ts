/**
 * The archive codec: format 2 (preset dictionary, stored strings kept as the values they hold, the
 * outcomes the audit entries say left out) gives back every stored string byte for byte; format 1,
 * in users' Redis since the first archive, stays readable; and the dictionary never changes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, WorkflowRecord } from '../../src/engine/decision.ts';
import {
  type Archive,
  ARCHIVE_FORMAT,
  archivedRecord,
  decodeArchive,
  encodeArchive,
  isArchive,
} from '../../src/store/redis/archive-codec.ts';
import { archiveDictionaryV2 } from '../../src/store/redis/archive-dictionary.ts';
import { decodeAudit, encodeAudit } from '../../src/store/redis/audit-codec.ts';

/** A support workflow's archive as the janitor of the version before format 2 wrote it (format 1). */
const supportFormat1 = Buffer.from(
  readFileSync(new URL('fixtures/support-archive.format-1.b64', import.meta.url), 'utf8'),
  'base64',
);
/**
 * The same archive as format 2 wrote it when format 2 was released: it pins the whole format (the
 * dictionary, which values are kept as values, which outcomes the entries say), not only the dictionary.
 */
const supportFormat2 = Buffer.from(
  readFileSync(new URL('fixtures/support-archive.format-2.b64', import.meta.url), 'utf8'),
  'base64',
);
/** Format 1's decoder, as every version before format 2 had it. */
const decodeFormat1 = (stored: Buffer) => JSON.parse(inflateRawSync(stored.subarray(1)).toString('utf8')) as Archive;
/** The JSON document inside a format-2 archive. */
const documentOf = (stored: Buffer) =>
  JSON.parse(inflateRawSync(stored.subarray(1), { dictionary: archiveDictionaryV2 }).toString('utf8')) as {
    said: number[];
    audit: [string, unknown][];
    outcomes: Record<string, unknown>;
  };

const workflowId = 's007-abcdefgh1234';
const record: WorkflowRecord = {
  workflowId,
  tenantId: 't1',
  definitionId: 'tiny',
  definitionVersion: 1,
  version: 3,
  status: 'done',
  statePaths: ['done'],
  snapshot: { status: 'done', value: 'done', historyValue: {}, context: { n: 1 }, children: {} },
  timers: {},
  createdAt: 1,
  updatedAt: 2,
  correlationId: workflowId,
};

function entry(eventId: string, version: number, to: string[], outcome: AuditEntry['outcome'] = 'accepted') {
  const written: AuditEntry = {
    workflowId,
    eventId,
    eventType: 'GO',
    channel: 'event',
    outcome,
    from: ['a'],
    to,
    actor: { id: 'u', kind: 'user', roles: ['r'] },
    guard: { outcome: 'none', guards: [], failedChecks: [] },
    reason: null,
    payloadDigest: null,
    artifactRefs: [],
    causationId: null,
    correlationId: workflowId,
    definition: 'tiny@1',
    version,
    at: 10 + version,
    effects: [],
    timersArmed: [],
    timersCancelled: [],
  };
  return encodeAudit(written);
}
const accepted = (version: number, statePaths: string[]) =>
  JSON.stringify({ outcome: 'accepted', version, statePaths });

/** An object's own entries, by key. */
const entriesOf = (values: Record<string, string>) =>
  Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Strings a stored field may hold: what Warden writes, other encoders' JSON, JSON strings, numbers, not JSON. */
const stored = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
  fc.string().map((text) => JSON.stringify(text)),
  fc.string(),
  fc.constantFrom(
    '{"i":"\\/create","y":"xstate.init"}',
    '{"a":1.0}',
    '{"a":1e2}',
    '3',
    'null',
    ' {}',
    '{"a":"\\u00e9"}',
  ),
);
const ids = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', `${workflowId}/go`, '/go', '!go'));
const archives: fc.Arbitrary<Archive> = fc.record({
  record: fc.constant(record),
  audit: fc.array(fc.tuple(fc.string(), fc.oneof(stored, fc.constantFrom(entry(`${workflowId}/go`, 2, ['b']))))),
  outcomes: fc.dictionary(ids, fc.oneof(stored, fc.constant(accepted(2, ['b'])))),
  artifacts: fc.dictionary(ids, stored),
});

describe('archive codec', () => {
  it('writes format 2 and reads back every stored string byte for byte, whatever it holds', () => {
    fc.assert(
      fc.property(archives, (archive) => {
        const encoded = encodeArchive(archive);
        expect(encoded[0]).toBe(2);
        expect(isArchive(encoded)).toBe(true);
        const decoded = decodeArchive(encoded);
        expect(decoded.record).toStrictEqual(record);
        expect(decoded.audit).toStrictEqual(archive.audit);
        // Own keys only: an id such as `__proto__` stays an id, never the prototype.
        expect(entriesOf(decoded.outcomes)).toStrictEqual(entriesOf(archive.outcomes));
        expect(entriesOf(decoded.artifacts)).toStrictEqual(entriesOf(archive.artifacts));
        expect(archivedRecord(encoded)).toStrictEqual(record);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps Warden’s JSON as values, anything else as the string it is', () => {
    const cjson = '{"i":"\\/late","y":"GO","o":"WORKFLOW_FINISHED","a":["u","user"],"d":"tiny@1","v":3,"at":1}';
    const archive: Archive = {
      record,
      audit: [
        ['1-0', entry(`${workflowId}/go`, 2, ['b'])],
        ['2-0', cjson],
      ],
      outcomes: { '~refusals': '1' },
      artifacts: { x: 'not JSON', y: '{"id":"y"}' },
    };
    const document = documentOf(encodeArchive(archive));
    expect(typeof document.audit[0]?.[1]).toBe('object');
    expect(document.audit[1]?.[1]).toBe(cjson); // escaped as another encoder (Lua's cjson) writes it
    const decoded = decodeArchive(encodeArchive(archive));
    expect(decoded).toStrictEqual(archive);
    // The same entry as Warden's own JSON of it.
    expect(decodeAudit(workflowId, decoded.audit[1]?.[1] ?? '')).toStrictEqual(
      decodeAudit(workflowId, cjson.replaceAll('\\/', '/')),
    );
  });

  it('leaves out the outcomes the audit entries say, and only those', () => {
    const archive: Archive = {
      record,
      audit: [
        ['1-0', entry(`${workflowId}/create`, 1, ['a'])],
        ['1-1', entry('ext-1', 2, ['b'])],
        ['1-2', entry('!odd', 3, [])],
        ['1-3', entry('late', 3, [], 'WORKFLOW_FINISHED')],
        ['1-4', entry('other', 3, ['c'])],
        ['1-5', entry('ext-1', 2, ['b'])], // a second entry of one event: its outcome is said once
      ],
      outcomes: {
        [`${workflowId}/create`]: accepted(1, ['a']),
        'ext-1': accepted(2, ['b']),
        '!odd': accepted(3, []),
        late: JSON.stringify({ outcome: 'refused', code: 'WORKFLOW_FINISHED', message: 'finished', details: {} }),
        other: accepted(4, ['c']), // not what its entry says (version 3): kept
        '~refusals': '1',
      },
      artifacts: {},
    };
    const encoded = encodeArchive(archive);
    const document = documentOf(encoded);
    expect(document.said).toEqual([0, 1, 2]);
    expect(Object.keys(document.outcomes).sort()).toEqual(['late', 'other', '~refusals']);
    expect(decodeArchive(encoded)).toStrictEqual(archive);
  });

  it('reads a format-1 archive written by the version before as that version did', () => {
    expect(supportFormat1[0]).toBe(1);
    expect(isArchive(supportFormat1)).toBe(true);
    const before = decodeFormat1(supportFormat1);
    const archive = decodeArchive(supportFormat1);
    expect(archive).toStrictEqual(before);
    expect(archivedRecord(supportFormat1)).toStrictEqual(before.record);
    expect(archive.record).toMatchObject({ definitionId: 'support', status: 'done', statePaths: ['completed'] });
    expect(archive.audit).toHaveLength(11);
    expect(archive.audit.map(([, json]) => decodeAudit(archive.record.workflowId, json).version)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    expect(Object.keys(archive.outcomes)).toHaveLength(11);
    expect(Object.keys(archive.artifacts)).toHaveLength(5);
  });

  it('writes that support archive again in format 2, the same archive in 20 % fewer bytes', () => {
    const archive = decodeFormat1(supportFormat1);
    const encoded = encodeArchive(archive);
    expect(decodeArchive(encoded)).toStrictEqual(archive);
    // Format 1: 3,812 bytes. Every outcome is said by its entry.
    expect(encoded.length).toBeLessThan(supportFormat1.length * 0.8);
    expect(documentOf(encoded).said).toHaveLength(11);
  });

  it('writes format 1 when told, as the version before wrote it and read it', () => {
    const archive = decodeFormat1(supportFormat1);
    const encoded = encodeArchive(archive, 1);
    expect(encoded[0]).toBe(1);
    expect(decodeFormat1(encoded)).toStrictEqual(archive);
    expect(decodeArchive(encoded)).toStrictEqual(archive);
  });

  it('reads a format-2 archive written when format 2 was released as it was written', () => {
    // A changed dictionary inflates to other JSON without an error (raw deflate has no dictionary
    // id), and a changed `saidByEntry` gives other outcomes: only bytes written back then tell.
    expect(supportFormat2[0]).toBe(2);
    const written = documentOf(supportFormat2);
    expect(written.said).toHaveLength(11);
    expect(Object.keys(written.outcomes)).toHaveLength(0);
    expect(typeof written.audit[0]?.[1]).toBe('object');
    expect(decodeArchive(supportFormat2)).toStrictEqual(decodeFormat1(supportFormat1));
    expect(archivedRecord(supportFormat2)).toStrictEqual(decodeFormat1(supportFormat1).record);
  });

  it('keeps a deeply nested stored string as the string (no value JSON.stringify cannot write back)', () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const nested = (depth: number) => `{"a":${deep(depth)}}`;
    const archive: Archive = {
      record,
      audit: [['1-0', deep(20_000)]],
      outcomes: { e: nested(5_000) },
      artifacts: { x: deep(200), y: deep(20) },
    };
    const encoded = encodeArchive(archive);
    expect(decodeArchive(encoded)).toStrictEqual(archive);
    const document = documentOf(encoded);
    expect(document.audit[0]?.[1]).toBe(deep(20_000));
    expect(document.outcomes['e']).toBe(nested(5_000));
    expect(typeof (document as unknown as { artifacts: Record<string, unknown> }).artifacts['y']).toBe('object');
  });

  it('refuses a format it does not know', () => {
    expect(ARCHIVE_FORMAT).toBe(2);
    expect(isArchive(Buffer.from('{"workflowId":"x"}'))).toBe(false);
    expect(isArchive(Buffer.alloc(0))).toBe(false);
    expect(() => decodeArchive(Buffer.of(3, 0))).toThrow('unknown archive format 3');
  });

  it('keeps the dictionary of format 2 byte for byte', () => {
    expect(archiveDictionaryV2.length).toBe(2058);
    // Every format-2 archive ever written needs exactly this dictionary to be read. Never change it:
    // a new dictionary needs a new format byte (and its own constant), and the old formats stay
    // readable forever.
    expect(createHash('sha256').update(archiveDictionaryV2).digest('hex')).toBe(
      'cdb6ec0971c1cad1dd4c2245ee061a6195e45393ea3f3cf91746bca7583703d2',
    );
  });
});
