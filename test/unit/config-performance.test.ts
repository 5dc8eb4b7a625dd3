/**
 * The performance settings of issue 14: defaults a laptop can run, bounds a typo cannot pass, and
 * the worker's concurrency and the record cache reaching the runtime and the store.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('the performance settings', () => {
  it('default to 64 jobs at once and 1,000 cached records', () => {
    const config = loadConfig({});
    expect(config.WARDEN_WORKER_CONCURRENCY).toBe(64);
    expect(config.WARDEN_RECORD_CACHE).toBe(1_000);
  });

  it('take a record cache of 0 (none) and refuse a concurrency of 0', () => {
    expect(loadConfig({ WARDEN_RECORD_CACHE: '0' }).WARDEN_RECORD_CACHE).toBe(0);
    expect(() => loadConfig({ WARDEN_WORKER_CONCURRENCY: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ WARDEN_RECORD_CACHE: '-1' })).toThrow(/WARDEN_RECORD_CACHE/);
    expect(() => loadConfig({ WARDEN_WORKER_CONCURRENCY: 'many' })).toThrow(/WARDEN_WORKER_CONCURRENCY/);
  });

  it('write archives in format 2 unless told 1 (what every earlier version reads), and know no other', () => {
    expect(loadConfig({}).WARDEN_ARCHIVE_FORMAT).toBe(2);
    expect(loadConfig({ WARDEN_ARCHIVE_FORMAT: '1' }).WARDEN_ARCHIVE_FORMAT).toBe(1);
    expect(() => loadConfig({ WARDEN_ARCHIVE_FORMAT: '3' })).toThrow(/WARDEN_ARCHIVE_FORMAT/);
    expect(() => loadConfig({ WARDEN_ARCHIVE_FORMAT: '0' })).toThrow(/WARDEN_ARCHIVE_FORMAT/);
  });
});
