/**
 * Lua scripts of effect adapters, registered on an ioredis client with `defineCommand` so they run
 * by EVALSHA. Works with a `Redis` or a `Cluster` client; any workflow's adapters register theirs
 * with `withScripts`.
 */
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';
import type { RecordScriptReply } from './reply-codes.ts';

export type EffectRedisClient = Redis | Cluster;

export interface ScriptSpec {
  /** The script file. */
  file: URL;
  numberOfKeys: number;
}

/** Registers each script under its command name on `client` (idempotent) and returns it typed with them. */
export function withScripts<T extends object>(
  client: EffectRedisClient,
  scripts: Readonly<Record<string, ScriptSpec>>,
): EffectRedisClient & T {
  for (const [name, spec] of Object.entries(scripts)) {
    client.defineCommand(name, { lua: readFileSync(spec.file, 'utf8'), numberOfKeys: spec.numberOfKeys });
  }
  return client as EffectRedisClient & T;
}

export interface DeliveryScriptCommands {
  wardenRecordDelivery(...args: string[]): Promise<RecordScriptReply>;
}

/** Registers the notifier's script. */
export function withDeliveryScript(client: EffectRedisClient): EffectRedisClient & DeliveryScriptCommands {
  return withScripts<DeliveryScriptCommands>(client, {
    wardenRecordDelivery: { file: new URL('./lua/record-delivery.lua', import.meta.url), numberOfKeys: 2 },
  });
}
