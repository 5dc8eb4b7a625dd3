/**
 * Counts the Redis commands an action sends, with MONITOR: only commands naming `prefix` are kept
 * (other tests share the server). MONITOR reports commands in the order Redis ran them, so once a
 * sentinel command sent after the action is seen, so is everything the action sent.
 */
import type { Redis } from 'ioredis';

export interface CommandWatch {
  /** Runs `action` and returns its result and the commands naming the prefix that ran meanwhile. */
  during<T>(action: () => Promise<T>): Promise<{ result: T; commands: string[][] }>;
  stop(): void;
}

export async function watchCommands(redis: Redis, prefix: string): Promise<CommandWatch> {
  const monitor = await redis.monitor();
  const seen: string[][] = [];
  let sentinels = 0;
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.some((arg) => arg.includes(prefix))) seen.push(args);
  });
  return {
    async during(action) {
      const from = seen.length;
      const result = await action();
      const sentinel = `${prefix}:sentinel:${++sentinels}`;
      await redis.exists(sentinel);
      const until = Date.now() + 10_000;
      while (!seen.some((args) => args.includes(sentinel))) {
        if (Date.now() > until) throw new Error('MONITOR never reported the sentinel');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { result, commands: seen.slice(from).filter((args) => !args.includes(sentinel)) };
    },
    stop: () => {
      monitor.disconnect();
    },
  };
}
