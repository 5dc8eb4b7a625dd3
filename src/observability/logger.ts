/**
 * The process logger: pino, one JSON object a line, so every log line of a process has one format.
 * On a terminal (or with `LOG_FORMAT=pretty`) each line is rewritten as `time LEVEL message
 * key=value…` for people; pino-pretty would do more, this is enough to read a start-up.
 */
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config.ts';

const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has, left out of the `key=value` tail. */
const known = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One pino JSON line as a short human line; a line that is not a JSON object is kept as it is. */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = levelNames[Number(entry.level)] ?? String(entry.level);
  const rest = Object.entries(entry)
    .filter(([key]) => !known.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, level.padEnd(5), typeof entry.msg === 'string' ? entry.msg : '', ...rest].join(' ').trim();
}

/** A pino destination that writes `humanLine` of each line to `output`. */
function humanLines(output: NodeJS.WritableStream): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) output.write(`${humanLine(line)}\n`);
    },
  };
}

/** The trace and span of the active span, on every line logged inside one (nothing when tracing is off). */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/** The logger of a process at `LOG_LEVEL`, in `LOG_FORMAT`, writing to `output` (stdout by default). */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  output: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Logger {
  const pretty = config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && output.isTTY === true);
  const options = { level: config.LOG_LEVEL, mixin: traceFields };
  if (pretty) return pino(options, humanLines(output));
  // pino's own stdout destination (synchronous), as before this module existed.
  return output === process.stdout ? pino(options) : pino(options, output as DestinationStream);
}
