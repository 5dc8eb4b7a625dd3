/**
 * The archive of a finished workflow: its record, its audit trail (with the stream ids, so audit
 * cursors stay valid), its event outcomes and its artifacts, as one JSON document compressed with raw deflate.
 * The first byte is the format version; a record stored as JSON starts with `{`, never with it.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { WorkflowRecord } from '../../engine/decision.ts';

const FORMAT = 1;

export interface Archive {
  record: WorkflowRecord;
  /** [stream id, stored audit entry JSON], oldest first. */
  audit: [string, string][];
  /** event id → stored outcome JSON */
  outcomes: Record<string, string>;
  /** artifact id → stored artifact JSON */
  artifacts: Record<string, string>;
}

export function encodeArchive(archive: Archive): Buffer {
  return Buffer.concat([Buffer.of(FORMAT), deflateRawSync(JSON.stringify(archive))]);
}

export function isArchive(stored: Buffer): boolean {
  return stored.length > 0 && stored[0] === FORMAT;
}

export function decodeArchive(stored: Buffer): Archive {
  if (!isArchive(stored)) throw new Error(`unknown archive format ${String(stored[0])}`);
  return JSON.parse(inflateRawSync(stored.subarray(1)).toString('utf8')) as Archive;
}
