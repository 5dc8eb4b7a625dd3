/**
 * What the HTTP layer is given (dependencies, passed in, never module singletons) and what each
 * request carries through its middleware.
 */
import type { z } from 'zod';
import type { WorkflowRegistry } from '../definitions/registry.ts';
import type { Engine } from '../engine/engine.ts';
import type { WorkflowDefinition } from '../engine/definition.ts';
import type { Principal } from '../engine/principal.ts';
import type { WorkflowStore } from '../engine/store-port.ts';
import type { CommitWatch } from '../runtime/commit-watch.ts';
import type { ExternalJobs } from '../runtime/external-jobs.ts';
import type { Authenticator } from './auth.ts';
import type { OpenApiDocument } from './openapi-components.ts';
import type { QueueLookup } from './queue-resolver.ts';

export interface ApiDeps {
  /**
   * Told the zod schema each request's query string or JSON body is read with, and each JSON
   * answer is typed by, by route (`GET /v1/workflows/:id`): how a test holds the handlers to the
   * schemas the document describes.
   */
  observeValidation?: (route: string, part: 'query' | 'body' | 'response', schema: z.ZodType) => void;
  engine: Engine;
  store: WorkflowStore;
  /** The registered workflows. */
  registry: WorkflowRegistry;
  /** Every registered version. */
  definitions: readonly WorkflowDefinition[];
  auth: Authenticator;
  clock: () => number;
  /** The queue `state` (`awaitingApproval` or `beforeAction.awaitingApproval`) names in `definitionId`, or in the one definition that has it. */
  resolveQueue: (name: string, definitionId?: string) => QueueLookup;
  /** Largest accepted request body, bytes. */
  bodyLimitBytes: number;
  /** Requests per principal per minute; 0 disables the limit. */
  ratePerMinute: number;
  /** Refused events per principal per workflow per minute before its events get 429 (0 = unlimited). */
  refusalsPerMinute?: number;
  /** How often a stream or a long-polled view reads its workflow again when no commit watch wakes it, ms. */
  streamPollMs: number;
  /**
   * Wakes streams and long-polled views at their workflow's next commit; without it they read the
   * workflow every `streamPollMs`.
   */
  commits?: CommitWatch;
  /** Long-polled view reads (`afterVersion`) waiting at once per principal (default 256, 0 no limit); more get 429. */
  maxWaitsPerPrincipal?: number;
  /** Job API claims (long polls) open at once per principal (default 16, 0 no limit); more get 429. */
  maxClaimsPerPrincipal?: number;
  /** Long-polled view reads waiting at once in this process (default 4,096, 0 no limit); more get 503. */
  maxWaits?: number;
  /** A reader woken by commit notices reads again after this long without one, ms (default `commitRecheckMs`, 5 s). */
  commitRecheckMs?: number;
  /** Open event streams allowed per principal (default 5). */
  maxStreamsPerPrincipal: number;
  /** A stream is closed after this long; clients reconnect (default 15 min). */
  streamMaxMs: number;
  /** True once the server is stopping: open streams end. */
  isShuttingDown?: () => boolean;
  /** Builds the OpenAPI document (default `openApiDocument`); called at most once per app. */
  buildOpenApi?: (registry: WorkflowRegistry) => OpenApiDocument;
  /** Prometheus exposition of this process's metrics, if enabled, and where requests are timed. */
  metrics?: {
    contentType: string;
    render(): Promise<string>;
    /** Seconds per answered request, labelled by route template (bounded), never the raw path. */
    httpDuration?: { observe(labels: { method: string; route: string; status: string }, seconds: number): void };
    /** Seconds per answered request that waited (a long poll, a claim with `waitMs`): apart, so waits never skew latency. */
    httpWaitDuration?: {
      observe(labels: { method: string; route: string; status: string }, seconds: number): void;
    };
  };
  /** When set, `/metrics` answers only `Authorization: Bearer <metricsToken>` (401 otherwise). */
  metricsToken?: string;
  /** External workers' side of jobs (the job API); absent when nothing runs outside. */
  jobs?: ExternalJobs;
  /** Is the runtime (workers) of this deployment alive? Consulted by /readyz. */
  workersAlive?: () => Promise<boolean>;
  logger?: {
    debug?(fields: Record<string, unknown>, message: string): void;
    info(fields: Record<string, unknown>, message: string): void;
    error(fields: Record<string, unknown>, message: string): void;
  };
}

export interface ApiEnv {
  Variables: {
    principal: Principal;
    /** When the stream ticket that authenticated the request expires (ms); undefined for a token. */
    ticketExpiresAt: number | undefined;
    requestId: string;
    workflowId: string;
    /** Set by a request that waits for something (a long poll, a claim with `waitMs`): timed apart. */
    waited: boolean;
    /** The `error.code` of an error answer, for the request log. */
    errorCode: string;
    /** `ApiDeps.observeValidation`, for the readers of bodies and queries. */
    observeValidation: ApiDeps['observeValidation'];
  };
}
