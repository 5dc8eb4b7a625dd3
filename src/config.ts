/**
 * Configuration: the only reader of `process.env`, validated by zod. Every setting has a default
 * that works on a laptop with nothing else installed.
 */
import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** What a model's tokens cost, per million (so the cost of one token in millionths of the currency). */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

const priceEntry = /^([A-Za-z0-9_.:/-]{1,100})=(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/;

/** `<model>=<input price>:<output price>`, comma-separated, each price per million tokens. */
const modelPrices = z
  .string()
  .max(4000)
  .refine((v) => v.split(',').every((entry) => priceEntry.test(entry.trim())), {
    error: 'expected <model>=<input per million tokens>:<output per million tokens>, comma-separated',
  })
  .transform((v): Record<string, ModelPrice> => {
    const prices: Record<string, ModelPrice> = {};
    for (const entry of v.split(',')) {
      const [, model = '', input = '0', output = '0'] = priceEntry.exec(entry.trim()) ?? [];
      prices[model] = { inputPerMillion: Number(input), outputPerMillion: Number(output) };
    }
    return prices;
  });

export const configSchema = z.object({
  /** Redis to keep workflows in; when unset, an in-memory store that keeps nothing across restarts. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Treat REDIS_URL as one node of a Redis Cluster. */
  REDIS_CLUSTER: flag.default(false),
  /** Namespace of every Redis key. */
  WARDEN_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default('warden'),
  /** Number of shards; fixed for the life of a deployment. */
  WARDEN_SHARDS: z.coerce.number().int().min(1).max(999).default(256),
  /** Shard lease time to live. */
  WARDEN_LEASE_MS: ms(15_000),
  /** An unacknowledged job idle this long is taken over by another worker. */
  WARDEN_JOB_LEASE_MS: ms(60_000),
  /** A finished workflow is folded into its compressed archive this long after it finished (0: at once). */
  WARDEN_ARCHIVE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(365 * 24 * 3_600_000)
    .default(60_000),
  /**
   * The format the janitor writes archives in: 2 (preset dictionary, smaller), or 1, which every
   * earlier version reads too: for a rolling upgrade from one, and for as long as a rollback to one
   * must stay possible. Every format is read whatever this says.
   */
  WARDEN_ARCHIVE_FORMAT: z.coerce
    .number()
    .pipe(z.union([z.literal(1), z.literal(2)]))
    .default(2),
  /** First idle wait between outbox reads (doubling while idle, up to WARDEN_IDLE_POLL_MS). */
  WARDEN_POLL_MS: ms(50),
  /**
   * Longest idle wait between reads of every leased outbox without a wake-up: the worst-case delay
   * of a job whose wake-up was lost. The wait starts again at WARDEN_POLL_MS after any job or wake-up.
   */
  WARDEN_IDLE_POLL_MS: ms(5_000),
  /**
   * Jobs a worker process runs at once at most: it reads more as soon as one finishes, so a slow
   * effect holds back no other job.
   */
  WARDEN_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(64),
  /**
   * Workflow records a process keeps after reading or writing them (0: none). A load of one of them
   * asks Redis only whether it is still the stored one; about 10-20 KB of memory each.
   */
  WARDEN_RECORD_CACHE: z.coerce.number().int().min(0).max(1_000_000).default(1_000),
  /** Longest timer-service sleep without a wake-up notification. */
  WARDEN_TIMER_POLL_MS: ms(1_000),
  /**
   * How often the timer service reads every leased shard's earliest due time anyway: a commit's
   * wake-up names it, so this only bounds one lost while the subscription was down (it reads them
   * all again when the subscription comes back, too).
   */
  WARDEN_TIMER_RESCAN_MS: ms(10_000),
  /**
   * Effect types run by external workers over the job API, comma-separated `<definition>:<effect
   * type>` (e.g. `support:requestClassification`); none by default.
   */
  WARDEN_EXTERNAL_EFFECTS: z.string().max(4000).optional(),
  /** Default timeout of every effect call. */
  WARDEN_EFFECT_TIMEOUT_MS: ms(10_000),
  /** `local` (offline, deterministic) or `openai` (any OpenAI-compatible chat-completions endpoint). */
  WARDEN_MODEL: z.enum(['local', 'openai']).default('local'),
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  OPENAI_API_KEY: z.string().optional(),
  /** HTTP port of the API role. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface the API binds: every interface by default; `127.0.0.1` keeps it on this machine. */
  HOST: z.string().min(1).max(255).default('0.0.0.0'),
  /** A request whose headers have not arrived after this long is dropped, ms. */
  WARDEN_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
  /** A request whose body has not arrived after this long is dropped, ms (event streams are not requests that wait on a body). */
  WARDEN_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  /**
   * HS256 secret for Bearer tokens; unset (and no JWKS) = the one in WARDEN_SECRET_FILE, generated
   * there at the first start, and starter tokens printed.
   */
  WARDEN_JWT_SECRET: z.string().min(16).optional(),
  /** Where a server without WARDEN_JWT_SECRET keeps its generated secret and `warden token` reads it (relative to the working directory). */
  WARDEN_SECRET_FILE: z.string().min(1).max(4096).default('.warden/secret'),
  /** Verify tokens against this JWKS (RS256/ES256) instead of a shared secret. */
  WARDEN_JWKS_URL: z.url().optional(),
  /** When set, Bearer tokens must carry this issuer (`iss`). */
  WARDEN_JWT_ISSUER: z.string().min(1).optional(),
  /** When set, Bearer tokens must carry this audience (`aud`). */
  WARDEN_JWT_AUDIENCE: z.string().min(1).optional(),
  /** When set, `/metrics` requires `Authorization: Bearer <this token>`; unset = open. */
  WARDEN_METRICS_TOKEN: z.string().min(16).max(1024).optional(),
  /**
   * When set, every `serve` process, whatever its roles, also answers `GET /metrics` on this port
   * (worker and timer processes open no other); with `--processes N` the n-th process (from 0) uses
   * this port + n. 0 picks a free port (logged).
   */
  WARDEN_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * One rendering of the metrics answers every scrape for this long, ms (0: each scrape renders);
   * many scrapers at once then cost one rendering, not one each.
   */
  WARDEN_METRICS_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /**
   * prom-client's event-loop delay percentiles (`nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,
   * p99}_seconds`): a timer every 10 ms from the first scrape on, which wakes an idle process 100
   * times a second (several ms of CPU a second). Off by default: not measured, not exported;
   * `nodejs_eventloop_lag_seconds`, measured at each scrape, and `nodejs_eventloop_busy_seconds_total`,
   * read at each scrape, stay.
   */
  WARDEN_EVENT_LOOP_MONITOR: flag.default(false),
  /**
   * Token prices per model for `warden_model_cost_total`, per million tokens (input:output), e.g.
   * `gpt-4o-mini=0.15:0.6`; unset = no cost metric, only token counts.
   */
  WARDEN_MODEL_PRICES: modelPrices.optional(),
  /** Which of the `serve --processes N` processes this is (0 … N-1); set by `serve` itself, not by hand. */
  WARDEN_PROCESS_INDEX: z.coerce.number().int().min(0).max(63).default(0),
  /** Requests per principal per minute (0 = unlimited). */
  WARDEN_RATE_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Refused events per principal per workflow per minute; beyond it, events to that workflow get 429 (0 = unlimited). */
  WARDEN_REFUSALS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Job API claims (long polls) open at once per caller, per process; more get 429 (0 = unlimited). */
  WARDEN_CLAIMS_PER_CALLER: z.coerce.number().int().min(0).default(16),
  /** Largest request body, bytes. */
  WARDEN_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  /** OTLP/HTTP base endpoint, e.g. `http://collector:4318` (traces go to `<it>/v1/traces`); unset = no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** OTLP/HTTP traces endpoint, used as it is (`http://collector:4318/v1/traces`); wins over the base endpoint. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** The service name on spans; default `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `warden`. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** Resource attributes of every span, `key=value,key=value` (values percent-encoded), as the specification has it. */
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  /** `true` (any case): no tracing whatever the endpoints say; any other value is ignored, as the specification says. */
  OTEL_SDK_DISABLED: z.string().optional(),
  /** A comma-separated list of exporters: spans are exported when it names `otlp` (the default); `none` alone, or only exporters Warden has not, export nothing. */
  OTEL_TRACES_EXPORTER: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one object a line), `pretty` (a short line for people), or `auto`: pretty when stdout is a terminal. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new ConfigError(`invalid configuration:\n${problems}`);
  }
  if (parsed.data.WARDEN_MODEL === 'openai' && !parsed.data.OPENAI_API_KEY) {
    throw new ConfigError('invalid configuration:\n  OPENAI_API_KEY: required when WARDEN_MODEL=openai');
  }
  return parsed.data;
}
