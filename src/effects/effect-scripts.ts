/**
 * The Lua scripts of the effect adapters (see `lua/`), registered on an ioredis client with
 * `defineCommand` so they run by EVALSHA. Works with a `Redis` or a `Cluster` client.
 */
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

export type EffectRedisClient = Redis | Cluster;

/** `[1, json]` when recorded now, `[0, json]` when the key already had an outcome. */
export type RecordReply = [number, string];

export interface EffectScriptCommands {
  wardenRecordRefund(...args: string[]): Promise<RecordReply>;
  wardenRecordCompensation(...args: string[]): Promise<RecordReply>;
  wardenRecordDelivery(...args: string[]): Promise<RecordReply>;
}

const script = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');

/** Registers the effect scripts on `client` (idempotent) and returns it typed with them. */
export function withEffectScripts(client: EffectRedisClient): EffectRedisClient & EffectScriptCommands {
  client.defineCommand('wardenRecordRefund', { lua: script('record-refund'), numberOfKeys: 3 });
  client.defineCommand('wardenRecordCompensation', { lua: script('record-compensation'), numberOfKeys: 4 });
  client.defineCommand('wardenRecordDelivery', { lua: script('record-delivery'), numberOfKeys: 2 });
  return client as EffectRedisClient & EffectScriptCommands;
}
