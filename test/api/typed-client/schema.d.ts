/**
 * Generated from the OpenAPI document by openapi-typescript (test/api/typed-client/generate.ts):
 * do not edit. `WARDEN_WRITE_CLIENT_TYPES=1 npx vitest run test/api/typed-client.test.ts` writes it anew.
 */
/* eslint-disable */
export interface paths {
  '/v1/workflows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller’s tenant’s workflows, or a queue: those of a definition in a state
     * @description Without `state`: the workflows of the caller’s tenant, newest first by creation, running and finished (also archived ones), filtered by `definition` (every version of it) and `status`, a page of `limit` at a time (pass `next` back as `cursor`); `id` lists that one workflow when the tenant has it and it matches the filters, else nothing (another tenant’s workflow is never listed). With `state`, a queue: the workflows of one definition (every version of it) waiting in a state, oldest first, with time in state and each workflow’s `summary` (what its definition shows in a queue). Another definition with a state of the same name has a queue of its own. Without `definition`, the default definition's queue (the first registered, as for a creation) when it has a state of that name, else the one definition that has; when several others do, the answer is 422 `AMBIGUOUS_STATE` with those definitions in `details.definitions`. An unknown state or definition is 400 `BAD_REQUEST` with the known ones in `details`; so is a queue asked with `id` or `status=done` (a queue holds running workflows), and a cursor the list did not give out. E.g. `state=beforeAction.awaitingApproval&definition=support` or `state=manualReview&definition=support`.
     */
    get: operations['listWorkflows'];
    put?: never;
    /**
     * Create a workflow
     * @description Creates a workflow of the named definition (`definition`: `id` or `id@version`; the first registered by default) from its `input`, and starts it. With an `Idempotency-Key`, the same tenant and key give the same workflow (201 new, 200 existing); the key sent again with another definition, version or input is 422 `IDEMPOTENCY_KEY_REUSED`, naming the existing workflow.
     */
    post: operations['createWorkflow'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A workflow
     * @description While it runs: state, version (also the `ETag`), the events this caller may send now with their schemas, timers, artifacts and evidence. Once finished: its terminal result and the versions that produced it. With `afterVersion` it is a long poll: the answer comes when the workflow is past that version or finished (pushed by the commit, not polled), or when `waitMs` has passed; compare the answer's `version`. With `until=finished` it waits for the workflow's result the same way.
     */
    get: operations['getWorkflow'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send an event
     * @description Applied through every role check and guard. `If-Match` makes it conditional on the version (412 otherwise). A repeated `eventId` returns the first outcome.
     */
    post: operations['sendEvent'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The audit trail
     * @description Every accepted and refused event, oldest first, paginated.
     */
    get: operations['getAudit'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/artifacts/{ref}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An artifact of the workflow
     * @description A stored artifact (a model call, policy or account evidence...) by its id, or by `<id>#<hash>` as an audit entry’s `artifactRefs` cites it (URL-encoded: `#` as `%23`; the hash must match). Readable by whoever may read the workflow, also once it is finished and archived; an artifact of another workflow or tenant, or none, is 404. `hashVerified` says whether the content still has its hash.
     */
    get: operations['getArtifact'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Server-sent events, one per version
     * @description A `text/event-stream` a standard `EventSource` follows. One `state` event per committed version, in order, from the audit trail (`id`: the version, `data`: `StreamVersion` JSON); refused events send nothing.
     *
     *     A reconnect with `Last-Event-ID` (or `?lastEventId=`, the header winning) gets only the later versions; a value that is not a version, or is past an active workflow’s version, is 400.
     *
     *     Once the workflow has finished: the remaining versions, then one `finished` event (`id`: the final version) and the end of the stream; a request with `Last-Event-ID` at or past the final version gets 204, on which an `EventSource` stops.
     *
     *     A `: keep-alive` comment follows 15 s without an event; a stream ends after 15 min or when the server stops, and the client resumes with `Last-Event-ID`. The stream starts with `retry: 2000`: an `EventSource` reconnects 2 s after it ends.
     *
     *     A browser’s `EventSource` cannot send `Authorization`: send `?ticket=` instead, from `POST /v1/workflows/{id}/stream-tickets` (never the token itself in a URL).
     */
    get: operations['streamWorkflow'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/stream-tickets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A ticket to the workflow’s stream, for a browser
     * @description Trades the caller’s token for a ticket that opens this workflow’s stream (`GET /v1/workflows/{id}/stream?ticket=…`) for a minute, as the caller: what a browser’s `EventSource` needs, without putting the long-lived token in a URL. A reconnect within the minute reuses it; after it, ask for another.
     */
    post: operations['createStreamTicket'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/tools': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The events this caller may send now, as LLM tools
     * @description OpenAI tools JSON: give these to a model; post its tool call to `/proposals`. Events only a person may send (the definition’s `personEvents`) are never offered.
     */
    get: operations['getTools'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/proposals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A model’s proposed tool call
     * @description Validated against the tools offered now and applied as the caller’s own event, through every guard, audited with `proposedBy` (the model and the proposal id); or refused with the reason (`TOOL_NOT_ALLOWED` names the offered tools). The model holds no human authority: an event only a person may send (the definition’s `personEvents`) is never applied from a proposal, even when the caller may send it; it is refused with 403 `FORBIDDEN`, `details.reason` `PERSON_EVENT`, and audited. The person sends it with their own request to `/events`.
     */
    post: operations['propose'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/definitions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The registered workflow definitions */
    get: operations['listDefinitions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/definitions/{id}/{version}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A definition: config JSON, directed graph, Mermaid diagram */
    get: operations['getDefinition'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/definitions/{id}/{version}/diff': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What changed in a definition since another version: the chart diff and its Mermaid picture
     * @description The chart diff `warden diff <id>@<from> <id>@<version> --json` prints (states, transitions and events added, removed and changed, and apart the `authority` changes), the summary lines `warden stately import` prints, and the new chart as a Mermaid `stateDiagram-v2` with the changes marked (`warden diff --mermaid`). `from` is the previous registered version by default; an unknown version, or none before this one, is 404 `NOT_FOUND`; a `from` that is not a version number is 400 `BAD_REQUEST`.
     */
    get: operations['diffDefinition'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/jobs/claim': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Claim jobs of external workers’ queues (long poll)
     * @description For service principals with the `worker` role. Waits up to `waitMs` for a job of the named `<definition>:<effect type>` queues (those in `WARDEN_EXTERNAL_EFFECTS`); each claimed job carries a lease token valid until `leaseExpiresAt`. At most `WARDEN_CLAIMS_PER_CALLER` (16) claims of one caller may be open at once; more are 429 `RATE_LIMITED`. A service acting purely as `worker` (no other role) serves every tenant; a service token with any other role besides `worker` serves only its own tenant: its claims get only that tenant’s jobs (the others stay queued for other workers), and a job id of another tenant is 404 `NOT_FOUND`, exactly as one that does not exist.
     */
    post: operations['claimJobs'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/jobs/{jobId}/heartbeat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Extend a held lease
     * @description A service acting purely as `worker` (no other role) serves every tenant; a service token with any other role besides `worker` serves only its own tenant: its claims get only that tenant’s jobs (the others stay queued for other workers), and a job id of another tenant is 404 `NOT_FOUND`, exactly as one that does not exist.
     */
    post: operations['heartbeatJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/jobs/{jobId}/complete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Report a job’s result with its lease token
     * @description Applied only with the token of the job’s current, unexpired lease (checked again atomically by the commit); anything else is 409 `LEASE_NOT_HELD` and audited. A payload that does not match its schema is 422 and does not use the job up. A refusal never settles the job: it is audited under an id of its own, the job stays queued, and a corrected result from the lease holder still commits. Only a committed result, or the job given up (its workflow’s dead-letter event), removes it. A service acting purely as `worker` (no other role) serves every tenant; a service token with any other role besides `worker` serves only its own tenant: its claims get only that tenant’s jobs (the others stay queued for other workers), and a job id of another tenant is 404 `NOT_FOUND`, exactly as one that does not exist.
     */
    post: operations['completeJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/jobs/{jobId}/fail': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Report a job’s failure with its lease token
     * @description Becomes the effect’s own failure event, so the workflow’s retry policy decides; an effect without one hands the workflow to a person (`escalated`). A service acting purely as `worker` (no other role) serves every tenant; a service token with any other role besides `worker` serves only its own tenant: its claims get only that tenant’s jobs (the others stay queued for other workers), and a job id of another tenant is 404 `NOT_FOUND`, exactly as one that does not exist.
     */
    post: operations['failJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/workflows/{id}/jobs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The jobs a workflow waits on, and its incidents
     * @description As the store keeps them, not as the audit trail suggests: each job the workflow waits on with the step that requested it, whether it is queued, running under a lease (who holds it, until when), past its lease with no worker on it (`leaseExpired`), waiting out a backoff before its next attempt (`nextAttemptAt`) or given up; its attempt and the most its retry policy allows. `incidents` are the jobs past their lease and the workflow’s dead letters (its last 20, newest first), kept after it finished. Tenant-checked as every workflow read: another tenant’s workflow is 404.
     */
    get: operations['getWorkflowJobs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/incidents': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The dead letters of the caller’s tenant
     * @description Every job or timer of the tenant’s workflows that was given up, newest first, a page at a time (`next` is the cursor of the next page, null at the end: opaque, send it back as `cursor`; any other cursor is 400 `BAD_REQUEST` with `details.issues` naming `cursor`); each names its workflow. Only the caller’s tenant’s are ever read.
     */
    get: operations['listIncidents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Where to go: the console, the interactive reference, the OpenAPI document */
    get: operations['index'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: store reachable, workers alive */
    get: operations['ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Prometheus metrics of this process
     * @description Open unless `WARDEN_METRICS_TOKEN` is set; then it needs `Authorization: Bearer <that token>` (not a JWT).
     */
    get: operations['metrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This document */
    get: operations['openapi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/docs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The interactive reference (Swagger UI, served from local packages) */
    get: operations['docs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/docs/assets/{file}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A script, style sheet or image of the interactive reference */
    get: operations['docsAsset'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The operator console: queues, the live statechart, the audit timeline, the events you may send */
    get: operations['console'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/console/assets/{file}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The console scripts (the page and its statechart drawing), its style sheet, or the Mermaid library (from the local package) */
    get: operations['consoleAsset'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** Customer support */
    SupportCreateBody: {
      /**
       * @description `id` for its latest version, or `id@version` (enum property replaced by openapi-typescript)
       * @enum {string}
       */
      definition: 'support' | 'support@1' | 'support@2';
      input: components['schemas']['SupportCreateInput'];
      correlationId?: string;
    };
    /** Agent task */
    AgentTaskCreateBody: {
      /**
       * @description `id` for its latest version, or `id@version` (enum property replaced by openapi-typescript)
       * @enum {string}
       */
      definition: 'agent-task' | 'agent-task@1';
      input: components['schemas']['AgentTaskCreateInput'];
      correlationId?: string;
    };
    /** Loan application */
    LoanCreateBody: {
      /**
       * @description `id` for its latest version, or `id@version` (enum property replaced by openapi-typescript)
       * @enum {string}
       */
      definition: 'loan' | 'loan@1';
      input: components['schemas']['LoanCreateInput'];
      correlationId?: string;
    };
    /**
     * @description Names the definition (`id` for its latest version, or `id@version`) and its creation input, validated against that definition’s `<Id>CreateInput`.
     * @example {
     *       "definition": "support",
     *       "input": {
     *         "request": {
     *           "customerId": "cust-1",
     *           "subject": "Charged twice",
     *           "message": "I was charged twice for March."
     *         }
     *       }
     *     }
     */
    CreateWorkflowBody:
      | components['schemas']['SupportCreateBody']
      | components['schemas']['AgentTaskCreateBody']
      | components['schemas']['LoanCreateBody'];
    /** Workflow (platform fields) */
    PlatformView: {
      workflowId: string;
      tenantId: string;
      /** @description State version; also the `ETag` */
      version: number;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
      /** @description Leaf state paths (the final state once finished) */
      state: string[];
    };
    /** @description The creation input of support: Classify a request, gather policy and account evidence in parallel, recommend a refund, validate it, wait for a human approval, execute it exactly once in effect, notify the customer. */
    SupportCreateInput: {
      request: {
        customerId: string;
        subject: string;
        message: string;
        orderId?: string;
        requestedAmount?: number;
        currency?: string;
      };
      config?: {
        /** @default 0.75 */
        confidenceThreshold: number;
        /** @default 86400000 */
        approvalTimeoutMs: number;
        /** @default 604800000 */
        workflowDeadlineMs: number;
        /** @default 172800000 */
        reviewDeadlineMs: number;
        /** @default 2 */
        maxRevisions: number;
        /** @default 200000 */
        maxModelTokens: number;
        /** @default 2000000 */
        maxModelCostMicros: number;
        /** @default 2000 */
        modelCostMicrosPerKiloToken: number;
        /** @default 2 */
        maxReviewRetries: number;
        /** @default support-reviewers */
        reviewQueue: string;
      };
    };
    /**
     * @description An event type of support
     * @enum {string}
     */
    SupportEventType:
      | 'ACCOUNT_INSPECTED'
      | 'ACTION_EXECUTED'
      | 'ACTION_FAILED'
      | 'ACTION_NOT_FOUND'
      | 'ACTION_OUTCOME_UNKNOWN'
      | 'ACTION_VOIDED'
      | 'APPROVED'
      | 'CANCEL_REQUESTED'
      | 'CHANGES_REQUESTED'
      | 'CLASSIFIED'
      | 'COMPENSATE'
      | 'COMPENSATION_FAILED'
      | 'COMPENSATION_SUCCEEDED'
      | 'CUSTOMER_NOTIFIED'
      | 'ESCALATE'
      | 'FRAUD_CLEARED'
      | 'FRAUD_SUSPECTED'
      | 'PERMANENT_ERROR'
      | 'POLICY_INVALID'
      | 'POLICY_RETRIEVED'
      | 'POLICY_UNCLEAR'
      | 'POLICY_VALID'
      | 'POST_ACTION_INVARIANT_FAILED'
      | 'RECOMMENDATION_GENERATED'
      | 'REJECTED_BY_REVIEWER'
      | 'RETRYABLE_ERROR'
      | 'REVIEW_ASSIGN'
      | 'REVIEW_COMPLETE'
      | 'REVIEW_REJECT'
      | 'REVIEW_RETRY_STEP'
      | 'START';
    /** @description What the console pre-fills of the events only a person may send to a support workflow, by type */
    SupportPrefill: {
      /** @description The fields of a `APPROVED` payload the console fills in */
      APPROVED?: {
        recommendationVersion?: number;
        contentHash?: string;
        amount?: number;
        comment?: string;
      };
      /** @description The fields of a `REJECTED_BY_REVIEWER` payload the console fills in */
      REJECTED_BY_REVIEWER?: {
        recommendationVersion?: number;
        contentHash?: string;
        reason?: string;
      };
      /** @description The fields of a `CHANGES_REQUESTED` payload the console fills in */
      CHANGES_REQUESTED?: {
        recommendationVersion?: number;
        contentHash?: string;
        instructions?: string;
      };
      /** @description The fields of a `CANCEL_REQUESTED` payload the console fills in */
      CANCEL_REQUESTED?: {
        reason?: string;
      };
      /** @description The fields of a `COMPENSATE` payload the console fills in */
      COMPENSATE?: {
        reason?: string;
      };
      /** @description The fields of a `REVIEW_RETRY_STEP` payload the console fills in */
      REVIEW_RETRY_STEP?: {
        /** @enum {string} */
        step?: 'classify' | 'gatherEvidence' | 'recommend' | 'validate' | 'reconcileAction' | 'notify';
        note?: string;
      };
      /** @description The fields of a `REVIEW_REJECT` payload the console fills in */
      REVIEW_REJECT?: {
        reason?: string;
      };
      /** @description The fields of a `REVIEW_COMPLETE` payload the console fills in */
      REVIEW_COMPLETE?: {
        resolution?: string;
        evidence?: {
          kind: string;
          ref: string;
        }[];
      };
    };
    /** @description What the console shows a person: the evidence card, prefilled fields, confirmations */
    SupportPresentation: {
      facts: {
        label: string;
        value: string;
        /**
         * @description Supporting information, not proof (a model’s rationale): the console shows it apart
         * @constant
         */
        supporting?: true;
      }[];
      prefill: components['schemas']['SupportPrefill'];
      confirm: {
        [key: string]: string;
      };
      artifacts: {
        [key: string]: string;
      };
    };
    /** Customer support workflow */
    SupportView: components['schemas']['PlatformView'] &
      ({
        /**
         * @description `<id>@<version>` of the definition the workflow runs on: tells the views apart
         * @enum {string}
         */
        definition: 'support@1' | 'support@2';
        presentation?: components['schemas']['SupportPresentation'];
      } & (
        | {
            /** @constant */
            status: 'active';
            /** @description The events this caller may send now, each with its button (label and kind) and the JSON Schema of its payload */
            allowedEvents: {
              type: components['schemas']['SupportEventType'];
              /** @description The button’s words: the definition’s own label, else the event type in words (`Rejected by reviewer`) */
              label: string;
              /**
               * @description How the button is styled: `primary` the way forward, `danger` what refuses, ends or cannot be undone, `neutral` the rest (the default)
               * @enum {string}
               */
              kind: 'primary' | 'danger' | 'neutral';
              /** @description What sending it does, when the definition says */
              description?: string;
              /** @description The JSON Schema of the payload */
              schema: {
                [key: string]: unknown;
              };
            }[];
            /** @description The armed timers */
            timers: {
              id: string;
              /** Format: date-time */
              dueAt: string;
              inMs: number;
            }[];
          }
        | {
            /** @constant */
            status: 'finished';
          }
      )) & {
        artifacts: {
          kind: string;
          id: string;
          hash: string;
        }[];
        evidence: {
          classification: {
            /** @enum {string} */
            category: 'billing' | 'access' | 'technical';
            confidence: number;
            artifact: {
              id: string;
              hash: string;
            };
            model: string;
            promptVersion: string;
          } | null;
          policy: {
            policyId: string;
            policyVersion: string;
            artifact: {
              id: string;
              hash: string;
            };
          } | null;
          account: {
            accountId: string;
            artifact: {
              id: string;
              hash: string;
            };
          } | null;
          recommendation: {
            version: number;
            contentHash: string;
            /** @constant */
            actionType: 'refund';
            amount: number;
            currency: string;
            artifact: {
              id: string;
              hash: string;
            };
            model: string;
            promptVersion: string;
            /** @description The model’s rationale: supporting information for the approver, not proof */
            rationale?: string;
          } | null;
          validation: {
            recommendationVersion: number;
            /** @enum {string} */
            outcome: 'valid' | 'invalid' | 'unclear';
            revisable: boolean;
            findings: string[];
            policyVersion: string;
            validatorVersion: string;
          } | null;
          /** @description Validations superseded by a newer one or by a new recommendation, oldest first (the newest 10) */
          validationHistory: {
            recommendationVersion: number;
            /** @enum {string} */
            outcome: 'valid' | 'invalid' | 'unclear';
            revisable: boolean;
            findings: string[];
            policyVersion: string;
            validatorVersion: string;
          }[];
          fraud: {
            /** @enum {string} */
            status: 'cleared' | 'suspected' | 'notScreened';
            recommendationVersion: number | null;
            score: number | null;
            reasons: string[];
            artifact: {
              id: string;
              hash: string;
            } | null;
          } | null;
          approval: {
            approverId: string;
            approverTenantId: string;
            approverLimit: number;
            recommendationVersion: number;
            contentHash: string;
            amount: number;
            at: number;
          } | null;
        };
        manualReview: {
          reason: string;
          step: string;
          detail: string | null;
          openedAt: number;
          deadline: number;
          overdue: boolean;
          owner: string;
          openQuestions: string[];
          allowedCommands: string[];
          evidence: string[];
          cancellable: boolean;
        } | null;
        /** @description The last manual review the workflow left, as it was when closed */
        lastReview: {
          reason: string;
          step: string;
          detail: string | null;
          openedAt: number;
          deadline: number;
          overdue: boolean;
          owner: string;
          openQuestions: string[];
          allowedCommands: string[];
          evidence: string[];
          cancellable: boolean;
          closedAt: number;
          closedBy: string;
          /** @description The event that closed it */
          closedWith: string;
        } | null;
        cancellation?: {
          requestedBy: string;
          reason: string;
          at: number;
          /** @enum {string} */
          status: 'pending' | 'honoured' | 'declinedActionExecuted';
        } | null;
        /** @description Every cancellation request with its reason, oldest first (the newest 10) */
        cancellationRequests?: {
          requestedBy: string;
          reason: string;
          at: number;
        }[];
        action?: {
          /** @enum {string} */
          status: 'notStarted' | 'inFlight' | 'unknown' | 'executed' | 'notFound' | 'failed' | 'voided';
          idempotencyKey: string | null;
        };
        result?: {
          /**
           * @description The final state the workflow ended in
           * @enum {string}
           */
          outcome: 'completed' | 'resolvedByReviewer' | 'rejected' | 'cancelled' | 'failed' | 'failedCompensated';
          receipts: {
            action: {
              providerOperationId: string;
              idempotencyKey: string;
              amount: number;
              currency: string;
              /** @constant */
              status: 'succeeded';
            } | null;
            notification: {
              deliveryId: string;
              deliveryKey: string;
              channel: string;
            } | null;
            compensation: {
              providerOperationId: string;
              idempotencyKey: string;
              reason: string;
            } | null;
          };
          cancellation: {
            requestedBy: string;
            reason: string;
            at: number;
            /** @enum {string} */
            status: 'pending' | 'honoured' | 'declinedActionExecuted';
          } | null;
          /** @description Every cancellation request with its reason, oldest first (the newest 10) */
          cancellationRequests: {
            requestedBy: string;
            reason: string;
            at: number;
          }[];
          resolution: {
            by: string;
            kind: string;
            text: string;
            evidence: string[];
          } | null;
          evidence: {
            kind: string;
            id: string;
            hash: string;
          }[];
          /** @description The versions of everything that produced the result */
          versions: {
            /** @description `<id>@<version>` */
            definition: string;
            classificationModel: string | null;
            classificationPrompt: string | null;
            recommendationModel: string | null;
            recommendationPrompt: string | null;
            /** @description `<policy id>@<policy version>` */
            policy: string | null;
            validator: string | null;
          };
        };
      } & {
        /**
         * @description discriminator enum property added by openapi-typescript
         * @enum {string}
         */
        definition: 'support@1' | 'support@2';
      };
    /** @description The creation input of agent-task: An AI agent proposes one catalogue operation; code validates it, a person approves the exact plan version, and it executes once under an idempotency key. */
    AgentTaskCreateInput: {
      task: {
        title: string;
        instructions: string;
        requestedOperation?: string;
        parameters?: {
          [key: string]: unknown;
        };
        /** Format: date-time */
        dataAsOf?: string;
      };
      config?: {
        /** @default 3 */
        maxExecutionAttempts: number;
        /** @default 2000 */
        retryDelayMs: number;
        /** @default 86400000 */
        approvalTimeoutMs: number;
        /** @default 86400000 */
        maxDataAgeMs: number;
        /** @default 200000 */
        maxModelTokens: number;
        /** @default 2000000 */
        maxModelCostMicros: number;
        /** @default 2000 */
        modelCostMicrosPerKiloToken: number;
      };
    };
    /**
     * @description An event type of agent-task
     * @enum {string}
     */
    AgentTaskEventType:
      | 'PLAN_PROPOSED'
      | 'PLAN_FAILED'
      | 'APPROVED'
      | 'REJECTED'
      | 'OPERATION_SUCCEEDED'
      | 'OPERATION_FAILED'
      | 'OPERATION_OUTCOME_UNKNOWN'
      | 'OPERATION_FOUND'
      | 'OPERATION_NOT_FOUND'
      | 'OPERATION_VOIDED'
      | 'CANCEL_REQUESTED'
      | 'ESCALATE'
      | 'REPLAN'
      | 'RECONCILE'
      | 'START';
    /** @description What the console pre-fills of the events only a person may send to a agent-task workflow, by type */
    AgentTaskPrefill: {
      /** @description The fields of a `APPROVED` payload the console fills in */
      APPROVED?: {
        planVersion?: number;
        planHash?: string;
        comment?: string;
      };
      /** @description The fields of a `REJECTED` payload the console fills in */
      REJECTED?: {
        planVersion?: number;
        planHash?: string;
        reason?: string;
      };
      /** @description The fields of a `CANCEL_REQUESTED` payload the console fills in */
      CANCEL_REQUESTED?: {
        reason?: string;
      };
      /** @description The fields of a `REPLAN` payload the console fills in */
      REPLAN?: {
        note?: string;
      };
      /** @description The fields of a `RECONCILE` payload the console fills in */
      RECONCILE?: {
        note?: string;
      };
    };
    /** @description What the console shows a person: the evidence card, prefilled fields, confirmations */
    AgentTaskPresentation: {
      facts: {
        label: string;
        value: string;
        /**
         * @description Supporting information, not proof (a model’s rationale): the console shows it apart
         * @constant
         */
        supporting?: true;
      }[];
      prefill: components['schemas']['AgentTaskPrefill'];
      confirm: {
        [key: string]: string;
      };
      artifacts: {
        [key: string]: string;
      };
    };
    /** Agent task workflow */
    AgentTaskView: components['schemas']['PlatformView'] &
      ({
        /**
         * @description `<id>@<version>` of the definition the workflow runs on: tells the views apart
         * @enum {string}
         */
        definition: 'agent-task@1';
        presentation?: components['schemas']['AgentTaskPresentation'];
      } & (
        | {
            /** @constant */
            status: 'active';
            /** @description The events this caller may send now, each with its button (label and kind) and the JSON Schema of its payload */
            allowedEvents: {
              type: components['schemas']['AgentTaskEventType'];
              /** @description The button’s words: the definition’s own label, else the event type in words (`Rejected by reviewer`) */
              label: string;
              /**
               * @description How the button is styled: `primary` the way forward, `danger` what refuses, ends or cannot be undone, `neutral` the rest (the default)
               * @enum {string}
               */
              kind: 'primary' | 'danger' | 'neutral';
              /** @description What sending it does, when the definition says */
              description?: string;
              /** @description The JSON Schema of the payload */
              schema: {
                [key: string]: unknown;
              };
            }[];
            /** @description The armed timers */
            timers: {
              id: string;
              /** Format: date-time */
              dueAt: string;
              inMs: number;
            }[];
          }
        | {
            /** @constant */
            status: 'finished';
          }
      )) & {
        task: {
          title: string;
          instructions: string;
          requestedOperation: string | null;
          dataAsOf: string | null;
          requesterId: string;
        };
        plan: {
          version: number;
          hash: string;
          operation: string;
          parameters: {
            [key: string]: unknown;
          };
          /** @description The model’s rationale: supporting information for the approver, not proof */
          rationale: string;
          model: string;
          promptVersion: string;
          inCatalogue: boolean;
          idempotent: boolean;
          reversible: boolean;
        } | null;
        validation: {
          planVersion: number;
          ok: boolean;
          reasons: string[];
          policyVersion: string;
        } | null;
        approval: {
          approverId: string;
          planVersion: number;
          planHash: string;
          at: number;
        } | null;
        execution: {
          /** @enum {string} */
          status: 'notStarted' | 'inFlight' | 'unknown' | 'notFound' | 'voided' | 'failed' | 'succeeded';
          idempotencyKey: string | null;
          receipt: {
            executionId: string;
            idempotencyKey: string;
            operation: string;
            parametersHash: string;
            executedAt: number;
          } | null;
          failure: string | null;
          attempts: number;
          maxAttempts: number;
        };
        escalation: {
          reason: string;
          detail: string | null;
          step: string;
        } | null;
        outcome: {
          /**
           * @description The final state the task ended in
           * @enum {string}
           */
          kind: 'completed' | 'validationFailed' | 'rejected' | 'cancelled' | 'failed';
          detail: string | null;
        } | null;
      } & {
        /**
         * @description discriminator enum property added by openapi-typescript
         * @enum {string}
         */
        definition: 'agent-task@1';
      };
    /** @description The creation input of loan: Parallel identity and credit checks, a model-drafted memo, an underwriter’s approval, a disbursement exactly once. */
    LoanCreateInput: {
      applicantId: string;
      amount: number;
      termMonths: number;
      purpose: string;
    };
    /**
     * @description An event type of loan
     * @enum {string}
     */
    LoanEventType:
      | 'IDENTITY_CHECKED'
      | 'CREDIT_CHECKED'
      | 'MEMO_DRAFTED'
      | 'DISBURSED'
      | 'IDENTITY_FAILED'
      | 'CREDIT_FAILED'
      | 'MEMO_FAILED'
      | 'DISBURSE_FAILED'
      | 'APPROVED'
      | 'DECLINED'
      | 'ESCALATE'
      | 'START';
    /** Loan application workflow */
    LoanView: components['schemas']['PlatformView'] &
      ({
        /**
         * @description `<id>@<version>` of the definition the workflow runs on: tells the views apart
         * @enum {string}
         */
        definition: 'loan@1';
      } & (
        | {
            /** @constant */
            status: 'active';
            /** @description The events this caller may send now, each with its button (label and kind) and the JSON Schema of its payload */
            allowedEvents: {
              type: components['schemas']['LoanEventType'];
              /** @description The button’s words: the definition’s own label, else the event type in words (`Rejected by reviewer`) */
              label: string;
              /**
               * @description How the button is styled: `primary` the way forward, `danger` what refuses, ends or cannot be undone, `neutral` the rest (the default)
               * @enum {string}
               */
              kind: 'primary' | 'danger' | 'neutral';
              /** @description What sending it does, when the definition says */
              description?: string;
              /** @description The JSON Schema of the payload */
              schema: {
                [key: string]: unknown;
              };
            }[];
            /** @description The armed timers */
            timers: {
              id: string;
              /** Format: date-time */
              dueAt: string;
              inMs: number;
            }[];
          }
        | {
            /** @constant */
            status: 'finished';
          }
      )) & {
        amount: number;
        identityVerified: boolean | null;
        creditScore: number | null;
        memo: unknown;
        decidedBy: string | null;
        disbursement: string | null;
      } & {
        /**
         * @description discriminator enum property added by openapi-typescript
         * @enum {string}
         */
        definition: 'loan@1';
      };
    /** @description What a queue item of support shows (its view.summary) */
    SupportQueueSummary: {
      customerId: string;
      subject: string;
      amount: number | null;
      currency: string | null;
      /** @description Why the workflow waits in manual review (a reason code) */
      reviewReason: string | null;
      /** @description Who took the manual review */
      owner: string | null;
    };
    /** @description What a queue item of agent-task shows (its view.summary) */
    AgentTaskQueueSummary: {
      title: string;
      /** @description The planned operation, else the one requested */
      operation: string | null;
      planVersion: number | null;
    };
    /** @description What a person decides from, as the workflow’s definition summarises it (its `view.summary`: the facts a queue shows, such as who asks, for what and why it waits); null when the definition has no summary */
    QueueSummary: components['schemas']['SupportQueueSummary'] | components['schemas']['AgentTaskQueueSummary'] | null;
    /** @description A workflow as its caller sees it: the platform’s fields plus what its definition renders, told apart by `definition`. */
    WorkflowView:
      components['schemas']['SupportView'] | components['schemas']['AgentTaskView'] | components['schemas']['LoanView'];
    SupportClassifiedPayload: {
      jobId: string;
      /** @enum {string} */
      category: 'billing' | 'access' | 'technical';
      confidence: number;
      artifact: {
        id: string;
        hash: string;
      };
      model: string;
      promptVersion: string;
      usage?: {
        promptTokens: number;
        completionTokens: number;
        calls: number;
      };
    };
    /** CLASSIFIED (support) */
    SupportClassifiedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CLASSIFIED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportClassifiedPayload'];
      causationId?: string;
    };
    SupportPolicyRetrievedPayload: {
      jobId: string;
      policyId: string;
      policyVersion: string;
      artifact: {
        id: string;
        hash: string;
      };
    };
    /** POLICY_RETRIEVED (support) */
    SupportPolicyRetrievedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'POLICY_RETRIEVED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPolicyRetrievedPayload'];
      causationId?: string;
    };
    SupportAccountInspectedPayload: {
      jobId: string;
      accountId: string;
      artifact: {
        id: string;
        hash: string;
      };
    };
    /** ACCOUNT_INSPECTED (support) */
    SupportAccountInspectedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACCOUNT_INSPECTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportAccountInspectedPayload'];
      causationId?: string;
    };
    SupportRecommendationGeneratedPayload: {
      jobId: string;
      recommendation: {
        /** @constant */
        actionType: 'refund';
        amount: number;
        currency: string;
        rationale: string;
      };
      contentHash: string;
      artifact: {
        id: string;
        hash: string;
      };
      model: string;
      promptVersion: string;
      usage?: {
        promptTokens: number;
        completionTokens: number;
        calls: number;
      };
    };
    /** RECOMMENDATION_GENERATED (support) */
    SupportRecommendationGeneratedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'RECOMMENDATION_GENERATED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportRecommendationGeneratedPayload'];
      causationId?: string;
    };
    SupportPolicyValidPayload: {
      jobId: string;
      recommendationVersion: number;
      policyVersion: string;
      validatorVersion: string;
      checks: string[];
    };
    /** POLICY_VALID (support) */
    SupportPolicyValidEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'POLICY_VALID';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPolicyValidPayload'];
      causationId?: string;
    };
    SupportPolicyInvalidPayload: {
      jobId: string;
      recommendationVersion: number;
      policyVersion: string;
      validatorVersion: string;
      revisable: boolean;
      reasons: string[];
    };
    /** POLICY_INVALID (support) */
    SupportPolicyInvalidEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'POLICY_INVALID';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPolicyInvalidPayload'];
      causationId?: string;
    };
    SupportPolicyUnclearPayload: {
      jobId: string;
      recommendationVersion: number;
      policyVersion: string;
      validatorVersion: string;
      questions: string[];
    };
    /** POLICY_UNCLEAR (support) */
    SupportPolicyUnclearEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'POLICY_UNCLEAR';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPolicyUnclearPayload'];
      causationId?: string;
    };
    SupportApprovedPayload: {
      recommendationVersion: number;
      contentHash: string;
      amount: number;
      comment?: string;
    };
    /** APPROVED (support) */
    SupportApprovedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'APPROVED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportApprovedPayload'];
      causationId?: string;
    };
    SupportRejectedByReviewerPayload: {
      recommendationVersion: number;
      contentHash: string;
      reason: string;
    };
    /** REJECTED_BY_REVIEWER (support) */
    SupportRejectedByReviewerEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REJECTED_BY_REVIEWER';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportRejectedByReviewerPayload'];
      causationId?: string;
    };
    SupportChangesRequestedPayload: {
      recommendationVersion: number;
      contentHash: string;
      instructions: string;
    };
    /** CHANGES_REQUESTED (support) */
    SupportChangesRequestedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CHANGES_REQUESTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportChangesRequestedPayload'];
      causationId?: string;
    };
    SupportActionExecutedPayload: {
      jobId: string;
      receipt: {
        providerOperationId: string;
        idempotencyKey: string;
        amount: number;
        currency: string;
        /** @constant */
        status: 'succeeded';
      };
    };
    /** ACTION_EXECUTED (support) */
    SupportActionExecutedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACTION_EXECUTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportActionExecutedPayload'];
      causationId?: string;
    };
    SupportActionOutcomeUnknownPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
    };
    /** ACTION_OUTCOME_UNKNOWN (support) */
    SupportActionOutcomeUnknownEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACTION_OUTCOME_UNKNOWN';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportActionOutcomeUnknownPayload'];
      causationId?: string;
    };
    SupportActionNotFoundPayload: {
      jobId: string;
      idempotencyKey: string;
    };
    /** ACTION_NOT_FOUND (support) */
    SupportActionNotFoundEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACTION_NOT_FOUND';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportActionNotFoundPayload'];
      causationId?: string;
    };
    SupportActionFailedPayload: {
      jobId: string;
      idempotencyKey: string;
      reason: string;
    };
    /** ACTION_FAILED (support) */
    SupportActionFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACTION_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportActionFailedPayload'];
      causationId?: string;
    };
    SupportActionVoidedPayload: {
      jobId: string;
      idempotencyKey: string;
    };
    /** ACTION_VOIDED (support) */
    SupportActionVoidedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ACTION_VOIDED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportActionVoidedPayload'];
      causationId?: string;
    };
    SupportPostActionInvariantFailedPayload: {
      jobId: string;
      receipt: {
        providerOperationId: string;
        idempotencyKey: string;
        amount: number;
        currency: string;
        /** @constant */
        status: 'succeeded';
      };
      violations: string[];
    };
    /** POST_ACTION_INVARIANT_FAILED (support) */
    SupportPostActionInvariantFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'POST_ACTION_INVARIANT_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPostActionInvariantFailedPayload'];
      causationId?: string;
    };
    SupportFraudClearedPayload: {
      jobId: string;
      score: number;
      artifact: {
        id: string;
        hash: string;
      };
    };
    /** FRAUD_CLEARED (support) */
    SupportFraudClearedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'FRAUD_CLEARED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportFraudClearedPayload'];
      causationId?: string;
    };
    SupportFraudSuspectedPayload: {
      jobId: string;
      score: number;
      reasons: string[];
      artifact: {
        id: string;
        hash: string;
      };
    };
    /** FRAUD_SUSPECTED (support) */
    SupportFraudSuspectedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'FRAUD_SUSPECTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportFraudSuspectedPayload'];
      causationId?: string;
    };
    SupportCustomerNotifiedPayload: {
      jobId: string;
      deliveryId: string;
      deliveryKey: string;
      channel: string;
    };
    /** CUSTOMER_NOTIFIED (support) */
    SupportCustomerNotifiedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CUSTOMER_NOTIFIED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportCustomerNotifiedPayload'];
      causationId?: string;
    };
    SupportRetryableErrorPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
    };
    /** RETRYABLE_ERROR (support) */
    SupportRetryableErrorEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'RETRYABLE_ERROR';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportRetryableErrorPayload'];
      causationId?: string;
    };
    SupportPermanentErrorPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
    };
    /** PERMANENT_ERROR (support) */
    SupportPermanentErrorEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'PERMANENT_ERROR';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportPermanentErrorPayload'];
      causationId?: string;
    };
    SupportCancelRequestedPayload: {
      reason: string;
    };
    /** CANCEL_REQUESTED (support) */
    SupportCancelRequestedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CANCEL_REQUESTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportCancelRequestedPayload'];
      causationId?: string;
    };
    SupportEscalatePayload: {
      reason: string;
      jobId?: string;
      questions?: string[];
    };
    /** ESCALATE (support) */
    SupportEscalateEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ESCALATE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportEscalatePayload'];
      causationId?: string;
    };
    SupportCompensatePayload: {
      reason: string;
    };
    /** COMPENSATE (support) */
    SupportCompensateEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'COMPENSATE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportCompensatePayload'];
      causationId?: string;
    };
    SupportCompensationSucceededPayload: {
      jobId: string;
      receipt: {
        providerOperationId: string;
        idempotencyKey: string;
      };
    };
    /** COMPENSATION_SUCCEEDED (support) */
    SupportCompensationSucceededEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'COMPENSATION_SUCCEEDED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportCompensationSucceededPayload'];
      causationId?: string;
    };
    SupportCompensationFailedPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass?:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
    };
    /** COMPENSATION_FAILED (support) */
    SupportCompensationFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'COMPENSATION_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportCompensationFailedPayload'];
      causationId?: string;
    };
    SupportReviewRetryStepPayload: {
      /** @enum {string} */
      step: 'classify' | 'gatherEvidence' | 'recommend' | 'validate' | 'reconcileAction' | 'notify';
      note: string;
    };
    /** REVIEW_RETRY_STEP (support) */
    SupportReviewRetryStepEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REVIEW_RETRY_STEP';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportReviewRetryStepPayload'];
      causationId?: string;
    };
    SupportReviewRejectPayload: {
      reason: string;
    };
    /** REVIEW_REJECT (support) */
    SupportReviewRejectEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REVIEW_REJECT';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportReviewRejectPayload'];
      causationId?: string;
    };
    SupportReviewCompletePayload: {
      resolution: string;
      evidence: {
        kind: string;
        ref: string;
      }[];
    };
    /** REVIEW_COMPLETE (support) */
    SupportReviewCompleteEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REVIEW_COMPLETE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportReviewCompletePayload'];
      causationId?: string;
    };
    SupportReviewAssignPayload: {
      owner: string;
    };
    /** REVIEW_ASSIGN (support) */
    SupportReviewAssignEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REVIEW_ASSIGN';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['SupportReviewAssignPayload'];
      causationId?: string;
    };
    SupportStartPayload: Record<string, never>;
    /** START (support) */
    SupportStartEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'START';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload?: components['schemas']['SupportStartPayload'];
      causationId?: string;
    };
    /** @description An event for a support workflow: `type` picks the payload schema; unknown types are refused (422). */
    SupportEvent:
      | components['schemas']['SupportClassifiedEvent']
      | components['schemas']['SupportPolicyRetrievedEvent']
      | components['schemas']['SupportAccountInspectedEvent']
      | components['schemas']['SupportRecommendationGeneratedEvent']
      | components['schemas']['SupportPolicyValidEvent']
      | components['schemas']['SupportPolicyInvalidEvent']
      | components['schemas']['SupportPolicyUnclearEvent']
      | components['schemas']['SupportApprovedEvent']
      | components['schemas']['SupportRejectedByReviewerEvent']
      | components['schemas']['SupportChangesRequestedEvent']
      | components['schemas']['SupportActionExecutedEvent']
      | components['schemas']['SupportActionOutcomeUnknownEvent']
      | components['schemas']['SupportActionNotFoundEvent']
      | components['schemas']['SupportActionFailedEvent']
      | components['schemas']['SupportActionVoidedEvent']
      | components['schemas']['SupportPostActionInvariantFailedEvent']
      | components['schemas']['SupportFraudClearedEvent']
      | components['schemas']['SupportFraudSuspectedEvent']
      | components['schemas']['SupportCustomerNotifiedEvent']
      | components['schemas']['SupportRetryableErrorEvent']
      | components['schemas']['SupportPermanentErrorEvent']
      | components['schemas']['SupportCancelRequestedEvent']
      | components['schemas']['SupportEscalateEvent']
      | components['schemas']['SupportCompensateEvent']
      | components['schemas']['SupportCompensationSucceededEvent']
      | components['schemas']['SupportCompensationFailedEvent']
      | components['schemas']['SupportReviewRetryStepEvent']
      | components['schemas']['SupportReviewRejectEvent']
      | components['schemas']['SupportReviewCompleteEvent']
      | components['schemas']['SupportReviewAssignEvent']
      | components['schemas']['SupportStartEvent'];
    AgentTaskPlanProposedPayload: {
      plan: {
        operation: string;
        parameters: {
          [key: string]: unknown;
        };
        rationale: string;
      };
      planHash: string;
      artifact: {
        id: string;
        hash: string;
      };
      model: string;
      promptVersion: string;
      usage?: {
        promptTokens: number;
        completionTokens: number;
        calls: number;
      };
      jobId: string;
    };
    /** PLAN_PROPOSED (agent-task) */
    AgentTaskPlanProposedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'PLAN_PROPOSED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskPlanProposedPayload'];
      causationId?: string;
    };
    AgentTaskPlanFailedPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
      retryable: boolean;
    };
    /** PLAN_FAILED (agent-task) */
    AgentTaskPlanFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'PLAN_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskPlanFailedPayload'];
      causationId?: string;
    };
    AgentTaskApprovedPayload: {
      planVersion: number;
      planHash: string;
      comment?: string;
    };
    /** APPROVED (agent-task) */
    AgentTaskApprovedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'APPROVED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskApprovedPayload'];
      causationId?: string;
    };
    AgentTaskRejectedPayload: {
      planVersion: number;
      planHash: string;
      reason: string;
    };
    /** REJECTED (agent-task) */
    AgentTaskRejectedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REJECTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskRejectedPayload'];
      causationId?: string;
    };
    AgentTaskOperationSucceededPayload: {
      receipt: {
        executionId: string;
        idempotencyKey: string;
        operation: string;
        parametersHash: string;
        executedAt: number;
      };
      jobId: string;
    };
    /** OPERATION_SUCCEEDED (agent-task) */
    AgentTaskOperationSucceededEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_SUCCEEDED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationSucceededPayload'];
      causationId?: string;
    };
    AgentTaskOperationFailedPayload: {
      jobId: string;
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
      retryable: boolean;
    };
    /** OPERATION_FAILED (agent-task) */
    AgentTaskOperationFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationFailedPayload'];
      causationId?: string;
    };
    AgentTaskOperationOutcomeUnknownPayload: {
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
      jobId: string;
    };
    /** OPERATION_OUTCOME_UNKNOWN (agent-task) */
    AgentTaskOperationOutcomeUnknownEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_OUTCOME_UNKNOWN';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationOutcomeUnknownPayload'];
      causationId?: string;
    };
    AgentTaskOperationFoundPayload: {
      receipt: {
        executionId: string;
        idempotencyKey: string;
        operation: string;
        parametersHash: string;
        executedAt: number;
      };
      jobId: string;
    };
    /** OPERATION_FOUND (agent-task) */
    AgentTaskOperationFoundEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_FOUND';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationFoundPayload'];
      causationId?: string;
    };
    AgentTaskOperationNotFoundPayload: {
      idempotencyKey: string;
      jobId: string;
    };
    /** OPERATION_NOT_FOUND (agent-task) */
    AgentTaskOperationNotFoundEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_NOT_FOUND';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationNotFoundPayload'];
      causationId?: string;
    };
    AgentTaskOperationVoidedPayload: {
      idempotencyKey: string;
      jobId: string;
    };
    /** OPERATION_VOIDED (agent-task) */
    AgentTaskOperationVoidedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'OPERATION_VOIDED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskOperationVoidedPayload'];
      causationId?: string;
    };
    AgentTaskCancelRequestedPayload: {
      reason: string;
    };
    /** CANCEL_REQUESTED (agent-task) */
    AgentTaskCancelRequestedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CANCEL_REQUESTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskCancelRequestedPayload'];
      causationId?: string;
    };
    AgentTaskEscalatePayload: {
      reason: string;
      jobId?: string;
    };
    /** ESCALATE (agent-task) */
    AgentTaskEscalateEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ESCALATE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskEscalatePayload'];
      causationId?: string;
    };
    AgentTaskReplanPayload: {
      note: string;
    };
    /** REPLAN (agent-task) */
    AgentTaskReplanEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'REPLAN';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskReplanPayload'];
      causationId?: string;
    };
    AgentTaskReconcilePayload: {
      note: string;
    };
    /** RECONCILE (agent-task) */
    AgentTaskReconcileEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'RECONCILE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['AgentTaskReconcilePayload'];
      causationId?: string;
    };
    AgentTaskStartPayload: Record<string, never>;
    /** START (agent-task) */
    AgentTaskStartEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'START';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload?: components['schemas']['AgentTaskStartPayload'];
      causationId?: string;
    };
    /** @description An event for a agent-task workflow: `type` picks the payload schema; unknown types are refused (422). */
    AgentTaskEvent:
      | components['schemas']['AgentTaskPlanProposedEvent']
      | components['schemas']['AgentTaskPlanFailedEvent']
      | components['schemas']['AgentTaskApprovedEvent']
      | components['schemas']['AgentTaskRejectedEvent']
      | components['schemas']['AgentTaskOperationSucceededEvent']
      | components['schemas']['AgentTaskOperationFailedEvent']
      | components['schemas']['AgentTaskOperationOutcomeUnknownEvent']
      | components['schemas']['AgentTaskOperationFoundEvent']
      | components['schemas']['AgentTaskOperationNotFoundEvent']
      | components['schemas']['AgentTaskOperationVoidedEvent']
      | components['schemas']['AgentTaskCancelRequestedEvent']
      | components['schemas']['AgentTaskEscalateEvent']
      | components['schemas']['AgentTaskReplanEvent']
      | components['schemas']['AgentTaskReconcileEvent']
      | components['schemas']['AgentTaskStartEvent'];
    LoanIdentityCheckedPayload: {
      verified: boolean;
      jobId: string;
    };
    /** IDENTITY_CHECKED (loan) */
    LoanIdentityCheckedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'IDENTITY_CHECKED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanIdentityCheckedPayload'];
      causationId?: string;
    };
    LoanCreditCheckedPayload: {
      score: number;
      jobId: string;
    };
    /** CREDIT_CHECKED (loan) */
    LoanCreditCheckedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CREDIT_CHECKED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanCreditCheckedPayload'];
      causationId?: string;
    };
    LoanMemoDraftedPayload: {
      /** @enum {string} */
      recommendation: 'approve' | 'decline';
      summary: string;
      artifactId: string;
      jobId: string;
    };
    /** MEMO_DRAFTED (loan) */
    LoanMemoDraftedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'MEMO_DRAFTED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanMemoDraftedPayload'];
      causationId?: string;
    };
    LoanDisbursedPayload: {
      reference: string;
      jobId: string;
    };
    /** DISBURSED (loan) */
    LoanDisbursedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'DISBURSED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanDisbursedPayload'];
      causationId?: string;
    };
    LoanIdentityFailedPayload: {
      jobId: string;
      error: {
        /** @enum {string} */
        class:
          | 'TIMEOUT'
          | 'RATE_LIMITED'
          | 'UNAVAILABLE'
          | 'TRANSPORT'
          | 'INVALID_OUTPUT'
          | 'NOT_FOUND'
          | 'UNAUTHORIZED'
          | 'CONFLICT'
          | 'INTERNAL';
        message: string;
        retryable: boolean;
      };
    };
    /** IDENTITY_FAILED (loan) */
    LoanIdentityFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'IDENTITY_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanIdentityFailedPayload'];
      causationId?: string;
    };
    LoanCreditFailedPayload: {
      jobId: string;
      error: {
        /** @enum {string} */
        class:
          | 'TIMEOUT'
          | 'RATE_LIMITED'
          | 'UNAVAILABLE'
          | 'TRANSPORT'
          | 'INVALID_OUTPUT'
          | 'NOT_FOUND'
          | 'UNAUTHORIZED'
          | 'CONFLICT'
          | 'INTERNAL';
        message: string;
        retryable: boolean;
      };
    };
    /** CREDIT_FAILED (loan) */
    LoanCreditFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'CREDIT_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanCreditFailedPayload'];
      causationId?: string;
    };
    LoanMemoFailedPayload: {
      jobId: string;
      error: {
        /** @enum {string} */
        class:
          | 'TIMEOUT'
          | 'RATE_LIMITED'
          | 'UNAVAILABLE'
          | 'TRANSPORT'
          | 'INVALID_OUTPUT'
          | 'NOT_FOUND'
          | 'UNAUTHORIZED'
          | 'CONFLICT'
          | 'INTERNAL';
        message: string;
        retryable: boolean;
      };
    };
    /** MEMO_FAILED (loan) */
    LoanMemoFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'MEMO_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanMemoFailedPayload'];
      causationId?: string;
    };
    LoanDisburseFailedPayload: {
      jobId: string;
      error: {
        /** @enum {string} */
        class:
          | 'TIMEOUT'
          | 'RATE_LIMITED'
          | 'UNAVAILABLE'
          | 'TRANSPORT'
          | 'INVALID_OUTPUT'
          | 'NOT_FOUND'
          | 'UNAUTHORIZED'
          | 'CONFLICT'
          | 'INTERNAL';
        message: string;
        retryable: boolean;
      };
    };
    /** DISBURSE_FAILED (loan) */
    LoanDisburseFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'DISBURSE_FAILED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanDisburseFailedPayload'];
      causationId?: string;
    };
    LoanApprovedPayload: {
      memoArtifactId: string;
    };
    /** APPROVED (loan) */
    LoanApprovedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'APPROVED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanApprovedPayload'];
      causationId?: string;
    };
    LoanDeclinedPayload: {
      reason: string;
    };
    /** DECLINED (loan) */
    LoanDeclinedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'DECLINED';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanDeclinedPayload'];
      causationId?: string;
    };
    LoanEscalatePayload: {
      reason: string;
      jobId?: string;
    };
    /** ESCALATE (loan) */
    LoanEscalateEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'ESCALATE';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload: components['schemas']['LoanEscalatePayload'];
      causationId?: string;
    };
    LoanStartPayload: Record<string, never>;
    /** START (loan) */
    LoanStartEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: 'START';
      /** @description Makes the event idempotent: a repeated id returns the first outcome */
      eventId?: string;
      payload?: components['schemas']['LoanStartPayload'];
      causationId?: string;
    };
    /** @description An event for a loan workflow: `type` picks the payload schema; unknown types are refused (422). */
    LoanEvent:
      | components['schemas']['LoanIdentityCheckedEvent']
      | components['schemas']['LoanCreditCheckedEvent']
      | components['schemas']['LoanMemoDraftedEvent']
      | components['schemas']['LoanDisbursedEvent']
      | components['schemas']['LoanIdentityFailedEvent']
      | components['schemas']['LoanCreditFailedEvent']
      | components['schemas']['LoanMemoFailedEvent']
      | components['schemas']['LoanDisburseFailedEvent']
      | components['schemas']['LoanApprovedEvent']
      | components['schemas']['LoanDeclinedEvent']
      | components['schemas']['LoanEscalateEvent']
      | components['schemas']['LoanStartEvent'];
    /** @description An event for a workflow of any registered definition (see each definition’s `…Event`). */
    AnyEvent:
      | components['schemas']['SupportEvent']
      | components['schemas']['AgentTaskEvent']
      | components['schemas']['LoanEvent'];
    Proposal: {
      name: string;
      arguments:
        | string
        | {
            [key: string]: unknown;
          };
      /** @description The proposal's id, and the event id it is applied under; left out, one is made and answered */
      eventId?: string;
      /** @description The model that proposed the call, audited as `proposedBy`; left out, its id is `unknown` */
      model?: {
        id: string;
        version?: string;
      };
    };
    ClaimJobsBody: {
      queues: string[];
      /** @default 1 */
      max: number;
      /** @default 30000 */
      leaseMs: number;
      /** @default 0 */
      waitMs: number;
    };
    ClaimedJobs: {
      jobs: {
        jobId: string;
        workflowId: string;
        definition: {
          id: string;
          version: number;
        };
        /** @description The effect type */
        type: string;
        /** @description `<definition>:<effect type>` */
        queue: string;
        operation: string;
        params: {
          [key: string]: unknown;
        };
        /** @description 1 on the first claim */
        deliveries: number;
        /** @description Send it with every heartbeat and with the result */
        leaseToken: string;
        /** @description Ms since the epoch; heartbeat before then */
        leaseExpiresAt: number;
        /** @description The W3C trace context of the step that requested the job, when it was traced: send it back as the `traceparent` header of the result to continue the trace */
        traceparent?: string;
      }[];
    };
    HeartbeatBody: {
      leaseToken: string;
      /** @default 30000 */
      leaseMs: number;
    };
    Heartbeat: {
      jobId: string;
      leaseExpiresAt: number;
    };
    CompleteJobBody: {
      leaseToken: string;
      result: {
        type: string;
        payload: {
          [key: string]: unknown;
        };
      };
    };
    FailJobBody: {
      /** @enum {string} */
      errorClass:
        | 'TIMEOUT'
        | 'RATE_LIMITED'
        | 'UNAVAILABLE'
        | 'TRANSPORT'
        | 'INVALID_OUTPUT'
        | 'NOT_FOUND'
        | 'UNAUTHORIZED'
        | 'CONFLICT'
        | 'INTERNAL';
      message: string;
      retryable: boolean;
      leaseToken: string;
    };
    JobResult: {
      jobId: string;
      /** @enum {string} */
      outcome: 'accepted' | 'escalated';
      version?: number;
      state?: string[];
      /** @description The holder sent this result before: its first outcome */
      replayed?: boolean;
    };
    WorkflowJob: {
      jobId: string;
      /** @description The effect type (the action the chart names) */
      type: string;
      operation: string;
      /**
       * @description `queued`: not taken yet; `running`: a worker holds its lease (`lease`); `leaseExpired`: its lease ran out and no worker took it again yet (stuck: an incident); `waitingToRetry`: its last attempt failed and a backoff timer starts the next at `nextAttemptAt`; `deadLettered`: given up (an incident)
       * @enum {string}
       */
      status: 'queued' | 'running' | 'leaseExpired' | 'waitingToRetry' | 'deadLettered';
      /** @description The step that requested it (its audit entry), while the trail holds it */
      requestedBy: {
        eventId: string;
        eventType: string;
        state: string[];
        /** Format: date-time */
        at: string;
      } | null;
      /**
       * @description A worker of Warden, or an external worker over the job API
       * @enum {string}
       */
      runsOn: 'warden' | 'external';
      /** @description Who holds it and until when: a worker process or an external worker’s principal */
      lease: {
        owner: string;
        /** Format: date-time */
        expiresAt: string;
        expired: boolean;
      } | null;
      /** @description How often a worker of Warden was handed it, or (`runsOn: external`) external workers claimed it */
      deliveries: number;
      /** @description Its attempt as the retry policy counts it (1 for the first) */
      attempt: number | null;
      /** @description The most attempts the retry policy allows */
      maxAttempts: number | null;
      /** @description When the next attempt starts (`waitingToRetry`) */
      nextAttemptAt: string | null;
      /** @description Why it was given up (`deadLettered`), or how its last attempt ended (`waitingToRetry`: the failure event of its result and the reason it states) */
      lastError: string | null;
      /** @description When the step that requested it was committed */
      createdAt: string | null;
    };
    Incident: {
      /**
       * @description `deadLetter`: a job or timer given up (after its deliveries, a refused result, or an external worker’s failure with nowhere to go); `leaseExpired`: a job whose lease ran out and that no worker took again yet
       * @enum {string}
       */
      kind: 'deadLetter' | 'leaseExpired';
      workflowId: string;
      jobId: string | null;
      /** @description The effect type (a job) or `timer` */
      type: string | null;
      reason: string;
      deliveries: number;
      /**
       * Format: date-time
       * @description When it was given up, or when the lease ran out
       */
      at: string;
      /** @description The dead letter’s id */
      id: string | null;
    };
    WorkflowJobs: {
      workflowId: string;
      jobs: components['schemas']['WorkflowJob'][];
      incidents: components['schemas']['Incident'][];
    };
    IncidentPage: {
      incidents: components['schemas']['Incident'][];
      next: string | null;
    };
    EventAccepted: {
      workflowId: string;
      eventId: string;
      /** @constant */
      outcome: 'accepted';
      state: string[];
      version: number;
    };
    QueuePage: {
      /**
       * @description What this page is: one of a queue (with `state`) (enum property replaced by openapi-typescript)
       * @enum {string}
       */
      page: 'queue';
      /** @description The definition whose queue this is (every version of it) */
      definition: string;
      /** @description The resolved state path */
      state: string;
      items: {
        workflowId: string;
        statePath: string;
        /** Format: date-time */
        since: string;
        timeInStateMs: number;
        summary: components['schemas']['QueueSummary'];
      }[];
      /** @description Pass as `cursor` for the next page; null at the end */
      next: string | null;
    };
    AuditPage: {
      workflowId: string;
      entries: {
        workflowId: string;
        eventId: string;
        eventType: string;
        /** @enum {string} */
        channel: 'create' | 'event' | 'timer';
        /** @enum {string} */
        outcome:
          | 'accepted'
          | 'NO_TRANSITION'
          | 'GUARD_REJECTED'
          | 'WORKFLOW_FINISHED'
          | 'INVALID_EVENT'
          | 'FORBIDDEN'
          | 'STALE_TIMER'
          | 'STALE_JOB'
          | 'LEASE_NOT_HELD'
          | 'OUTCOME_UNPROVEN';
        from: string[];
        to: string[];
        actor: {
          id: string;
          /** @enum {string} */
          kind: 'user' | 'service' | 'timer';
          roles: string[];
        };
        /** @description Present when a model proposed the event (`/proposals`); the actor is the caller who posted it */
        proposedBy?: {
          /** @constant */
          kind: 'model';
          model: {
            id: string;
            version?: string;
          };
          proposalId: string;
        };
        guard: {
          /** @enum {string} */
          outcome: 'passed' | 'none' | 'refused';
          guards: string[];
          failedChecks: string[];
        };
        /** @description The stated reason: the payload’s first text field of `reason`, `note`, `resolution`, `instructions`, `comment`, at most 500 characters */
        reason: string | null;
        /** @description `sha256:` of the canonical JSON of the payload as received (the creation input for a creation) */
        payloadDigest: string | null;
        /** @description The artifacts the payload cites, as `<id>#<hash>` (at most 32); each can be read at `/v1/workflows/{id}/artifacts/{ref}` */
        artifactRefs: string[];
        causationId: string | null;
        correlationId: string | null;
        definition: string;
        /** @description The record version after this entry (unchanged for a refusal) */
        version: number;
        /** @description Milliseconds since the epoch */
        at: number;
        effects: string[];
        timersArmed: string[];
        timersCancelled: string[];
      }[];
      /** @description Pass as `cursor` for the next page; null at the end */
      next: string | null;
      /** @description Refused events so far (since the last archive); beyond 1,000 they are counted, not recorded */
      refusalsCounted: number;
    };
    /** @description Evidence a workflow stored: what a model was asked and answered, a policy, an account */
    Artifact: {
      workflowId: string;
      id: string;
      /** @description What made it, e.g. `model-call` */
      kind: string;
      /** @description `sha256:` of the canonical JSON of `content`, as cited by context and audit */
      hash: string;
      /** @description Whether `content` as stored still has `hash` */
      hashVerified: boolean;
      /** Format: date-time */
      createdAt: string;
      /** @description The artifact as stored */
      content: unknown;
    };
    /** @description The `data` of each `state` server-sent event, and of the final `finished` one */
    StreamVersion: {
      workflowId: string;
      /** @description The version, also the event `id` */
      version: number;
      /** @description The event that made this version (`xstate.init`: the creation); not on `finished` */
      eventType?: string;
      /** @description Leaf state paths after this version */
      state: string[];
      /**
       * @description `finished` only on the last version of a finished workflow
       * @enum {string}
       */
      status: 'active' | 'finished';
      /**
       * Format: date-time
       * @description When the version was committed
       */
      at: string;
    };
    Tools: {
      workflowId: string;
      version: number;
      tools: {
        /** @constant */
        type: 'function';
        function: {
          name: string;
          description: string;
          parameters: {
            [key: string]: unknown;
          };
        };
      }[];
    };
    DefinitionList: {
      definitions: {
        id: string;
        version: number;
        key: string;
        latest: boolean;
        title: string;
        description: string;
        roles: {
          [key: string]: string;
        };
        /** @description The token claims this definition reads beyond the standard ones, by name: what each grants */
        claims: {
          [key: string]: string;
        };
        createRoles: string[];
        /** @description Events only a person may send: never offered as tools, refused when a model proposes them */
        personEvents: string[];
        queues: {
          state: string;
          title: string;
        }[];
        events: string[];
        /** @description How each of `events` is shown to a person who may send it: its button’s label, kind and description */
        eventPresentation: {
          [key: string]: {
            /** @description The button’s words: the definition’s own label, else the event type in words (`Rejected by reviewer`) */
            label: string;
            /**
             * @description How the button is styled: `primary` the way forward, `danger` what refuses, ends or cannot be undone, `neutral` the rest (the default)
             * @enum {string}
             */
            kind: 'primary' | 'danger' | 'neutral';
            /** @description What sending it does, when the definition says */
            description?: string;
          };
        };
        /** @description JSON Schema of the creation input */
        input: {
          [key: string]: unknown;
        };
        href: string;
      }[];
    };
    Definition: {
      key: string;
      /** @description The machine config as JSON; functions as `{ "$expr": "<source>" }` */
      config: unknown;
      graph: {
        nodes: {
          id: string;
          type: string;
          description: string | null;
        }[];
        edges: {
          source: string;
          target: string;
          event: string;
          guard: string | null;
        }[];
      };
      /** @description A Mermaid `stateDiagram-v2` */
      mermaid: string;
    };
    DefinitionDiff: {
      /** @description `<id>@<version>` compared with */
      from: string;
      /** @description `<id>@<version>` described */
      to: string;
      /** @description What `warden diff --json` prints */
      diff: {
        from: string;
        to: string;
        states: {
          added: {
            state: string;
            parent: string | null;
            type: string;
          }[];
          removed: {
            state: string;
            parent: string | null;
            type: string;
          }[];
          moved: {
            state: string;
            to: string;
            parent: {
              before: string | null;
              after: string | null;
            };
          }[];
          changed: {
            state: string;
            changes: {
              [key: string]: {
                before: string | string[];
                after: string | string[];
              };
            };
          }[];
        };
        transitions: {
          added: {
            /** @description The source state path (`''` is the root) */
            source: string;
            /** @description The event type, `after` (with its `delay`), `always` or `done` */
            event: string;
            delay: string | null;
            guard: string | null;
            targets: string[];
            actions: string[];
          }[];
          removed: {
            /** @description The source state path (`''` is the root) */
            source: string;
            /** @description The event type, `after` (with its `delay`), `always` or `done` */
            event: string;
            delay: string | null;
            guard: string | null;
            targets: string[];
            actions: string[];
          }[];
          changed: {
            /** @description The source state path (`''` is the root) */
            source: string;
            /** @description The event type, `after` (with its `delay`), `always` or `done` */
            event: string;
            delay: string | null;
            guard: string | null;
            changes: {
              target?: {
                before: string[];
                after: string[];
              };
              guard?: {
                before: string | null;
                after: string | null;
              };
              actions?: {
                before: string[];
                after: string[];
              };
              delay?: {
                before: string | null;
                after: string | null;
              };
            };
          }[];
        };
        events: {
          added: {
            event: string;
            roles: string[];
          }[];
          removed: {
            event: string;
            roles: string[];
          }[];
          rolesChanged: {
            before: string[];
            after: string[];
            event: string;
          }[];
        };
        /** @description Changes of who decides, flagged apart: a guard removed or weakened on an event a person may send, an effect reached without an approval, a new route to a final state, a role added */
        authority: {
          /** @enum {string} */
          code: 'GUARD_REMOVED' | 'GUARD_WEAKENED' | 'APPROVAL_SKIPPED' | 'NEW_ROUTE_TO_FINAL' | 'ROLE_ADDED';
          state: string | null;
          event: string | null;
          message: string;
        }[];
      };
      /** @description The counts, the states added, removed or moved and every authority change, a line each (none when nothing changed) */
      summary: string[];
      /** @description The new chart as a Mermaid `stateDiagram-v2`, removed states and transitions put back, the changes marked */
      mermaid: string;
    };
    /** @description Where to go from the root: what a browser or `curl` pointed at the server finds */
    Index: {
      /** @constant */
      name: 'warden';
      /**
       * @description The operator console
       * @constant
       */
      console: '/console';
      /**
       * @description The interactive reference
       * @constant
       */
      docs: '/docs';
      /**
       * @description The OpenAPI document
       * @constant
       */
      openapi: '/openapi.json';
    };
    Health: {
      /** @constant */
      status: 'ok';
    };
    Readiness: {
      /** @enum {string} */
      status: 'ready' | 'unavailable';
      store: boolean;
      workers: boolean;
    };
    /** @description The caller’s tenant’s workflows, newest first by creation, as filtered */
    WorkflowListPage: {
      /**
       * @description What this page is: one of the tenant’s workflow list (without `state`) (enum property replaced by openapi-typescript)
       * @enum {string}
       */
      page: 'list';
      items: {
        workflowId: string;
        /** @description `id@version` of the definition the workflow runs */
        definition: string;
        /**
         * @description `active` while it runs, `done` once finished
         * @enum {string}
         */
        status: 'active' | 'done';
        /** @description Its leaf state paths now (its final state once done) */
        statePaths: string[];
        /** Format: date-time */
        createdAt: string;
        /**
         * Format: date-time
         * @description When its last accepted event was committed
         */
        updatedAt: string;
        summary: components['schemas']['QueueSummary'];
      }[];
      /** @description Pass as `cursor` (with the same filters) for the next page; null at the end */
      next: string | null;
    };
    /** @description With `state`: one page of that queue; without: one page of the tenant’s workflow list */
    WorkflowsPage: components['schemas']['QueuePage'] | components['schemas']['WorkflowListPage'];
    /** @description A ticket to one workflow’s stream, for a browser’s `EventSource` (which cannot send `Authorization`): it opens only that stream until the earlier of a minute and the expiry of the token it was traded for (a stream it opened ends then: the browser reconnects, and asks for a new ticket once that is refused), and is refused anywhere else. */
    StreamTicket: {
      /** @description Send as `?ticket=` on the stream */
      ticket: string;
      /**
       * Format: date-time
       * @description When it stops opening the stream, and a stream it opened ends
       */
      expiresAt: string;
      /** @description The stream’s path with the ticket: `new EventSource(streamUrl)` */
      streamUrl: string;
    };
    /** @description One committed version, in order */
    StreamStateEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      event: 'state';
      /** @description The version: what `Last-Event-ID` resumes after */
      id: string;
      /** @description The version, as one line of JSON (an `EventSource` hands it over as text: `JSON.parse` it) */
      data: components['schemas']['StreamVersion'];
    };
    /** @description The workflow has finished: the last event of the stream */
    StreamFinishedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      event: 'finished';
      /** @description The version: what `Last-Event-ID` resumes after */
      id: string;
      /** @description The final version without `eventType`, as one line of JSON */
      data: components['schemas']['StreamVersion'];
    };
    /** @description One server-sent event of a workflow stream. A `: keep-alive` comment (not an event) follows 15 s of silence. */
    StreamEvent: components['schemas']['StreamStateEvent'] | components['schemas']['StreamFinishedEvent'];
    /** @enum {string} */
    ErrorCode:
      | 'MALFORMED_JSON'
      | 'BAD_REQUEST'
      | 'UNAUTHORIZED'
      | 'FORBIDDEN'
      | 'GUARD_REJECTED'
      | 'TOOL_NOT_ALLOWED'
      | 'NOT_FOUND'
      | 'METHOD_NOT_ALLOWED'
      | 'REQUEST_TIMEOUT'
      | 'NO_TRANSITION'
      | 'WORKFLOW_FINISHED'
      | 'STALE_JOB'
      | 'STALE_TIMER'
      | 'LEASE_NOT_HELD'
      | 'OUTCOME_UNPROVEN'
      | 'CONFLICT'
      | 'NO_MIGRATION'
      | 'PRECONDITION_FAILED'
      | 'PAYLOAD_TOO_LARGE'
      | 'UNSUPPORTED_MEDIA_TYPE'
      | 'INVALID_EVENT'
      | 'INVALID_INPUT'
      | 'IDEMPOTENCY_KEY_REUSED'
      | 'AMBIGUOUS_STATE'
      | 'RATE_LIMITED'
      | 'HEADERS_TOO_LARGE'
      | 'INTERNAL'
      | 'UNAVAILABLE';
    Error: {
      error: {
        code: components['schemas']['ErrorCode'];
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** MALFORMED_JSON (400) */
    MalformedJsonError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'MALFORMED_JSON';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** BAD_REQUEST (400) */
    BadRequestError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'BAD_REQUEST';
        message: string;
        details: {
          /** @description What does not match the schema: the field path, what is wrong */
          issues?: ({
            path: string;
            message: string;
            code?: string;
          } & {
            [key: string]: unknown;
          })[];
          /** @description The known states, for an unknown state */
          known?: string[];
          /** @description The known definitions, for an unknown definition */
          definitions?: string[];
          afterVersion?: number;
          until?: string;
          /** @description The workflow’s version now */
          version?: number;
          waitMs?: number;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** UNAUTHORIZED (401) */
    UnauthorizedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'UNAUTHORIZED';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** FORBIDDEN (403) */
    ForbiddenError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'FORBIDDEN';
        message: string;
        details: {
          /** @description Why, when a role is not the reason: `PERSON_EVENT` (only a person decides it), `INVALID_PRINCIPAL`, `JOB_RESULT_NEEDS_LEASE`, `LEASE_FOR_ANOTHER_JOB`, `JOB_GIVEN_UP_BY_WORKER_ONLY`, `WORKER_GIVES_UP_A_JOB` */
          reason?: string;
          /** @description The roles that may do it */
          requiredRoles?: string[];
          type?: string;
          /** @description The job the request names */
          jobId?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** GUARD_REJECTED (403) */
    GuardRejectedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'GUARD_REJECTED';
        message: string;
        details: {
          /** @description The first guard that refused */
          guard?: string | null;
          /** @description Every guard of the transitions the event could take */
          guards?: string[];
          /** @description What the guards found missing or wrong */
          failedChecks?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** TOOL_NOT_ALLOWED (403) */
    ToolNotAllowedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'TOOL_NOT_ALLOWED';
        message: string;
        details: {
          /** @description The tools the caller may use now */
          offered: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** NOT_FOUND (404) */
    NotFoundError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'NOT_FOUND';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** METHOD_NOT_ALLOWED (405) */
    MethodNotAllowedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'METHOD_NOT_ALLOWED';
        message: string;
        details: {
          /** @description The methods the path answers (also `Allow`) */
          allowed: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** REQUEST_TIMEOUT (408) */
    RequestTimeoutError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'REQUEST_TIMEOUT';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** NO_TRANSITION (409) */
    NoTransitionError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'NO_TRANSITION';
        message: string;
        details: {
          /** @description The workflow’s leaf state paths */
          state?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** WORKFLOW_FINISHED (409) */
    WorkflowFinishedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'WORKFLOW_FINISHED';
        message: string;
        details: {
          /** @description The workflow’s leaf state paths */
          state?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** STALE_JOB (409) */
    StaleJobError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'STALE_JOB';
        message: string;
        details: {
          /** @description The job the request names */
          jobId?: string;
          /** @description A job is in flight, but not the one named: no result will fit it */
          jobInFlight?: boolean;
          /** @description The jobs in flight */
          inFlight?: string[];
          guards?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** STALE_TIMER (409) */
    StaleTimerError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'STALE_TIMER';
        message: string;
        details: {
          timerId?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** LEASE_NOT_HELD (409) */
    LeaseNotHeldError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'LEASE_NOT_HELD';
        message: string;
        details: {
          /** @description The job the request names */
          jobId?: string;
          reason?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** OUTCOME_UNPROVEN (409) */
    OutcomeUnprovenError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'OUTCOME_UNPROVEN';
        message: string;
        details: {
          /** @description The final state the event would end in */
          outcome?: string;
          /** @description What that outcome proves */
          means?: string;
          /** @description The checks of that proof that do not hold */
          missing?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** CONFLICT (409) */
    ConflictError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'CONFLICT';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** NO_MIGRATION (409) */
    NoMigrationError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'NO_MIGRATION';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** PRECONDITION_FAILED (412) */
    PreconditionFailedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'PRECONDITION_FAILED';
        message: string;
        details: {
          /** @description The workflow’s version now */
          version: number;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** PAYLOAD_TOO_LARGE (413) */
    PayloadTooLargeError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'PAYLOAD_TOO_LARGE';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** UNSUPPORTED_MEDIA_TYPE (415) */
    UnsupportedMediaTypeError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'UNSUPPORTED_MEDIA_TYPE';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** INVALID_EVENT (422) */
    InvalidEventError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'INVALID_EVENT';
        message: string;
        details: {
          /** @description What does not match the schema: the field path, what is wrong */
          issues?: ({
            path: string;
            message: string;
            code?: string;
          } & {
            [key: string]: unknown;
          })[];
          /** @description The event type */
          type?: string;
          /** @description For an unknown type: the types the caller’s roles may send */
          knownTypes?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** INVALID_INPUT (422) */
    InvalidInputError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'INVALID_INPUT';
        message: string;
        details: {
          /** @description What does not match the schema: the field path, what is wrong */
          issues?: ({
            path: string;
            message: string;
            code?: string;
          } & {
            [key: string]: unknown;
          })[];
          /** @description The input fields sent at the top level beside `input` */
          topLevel?: string[];
          /** @description The registered definitions, for an unknown one */
          known?: string[];
          /** @description The queues named that no external worker serves */
          unknown?: string[];
          /** @description The queues of external workers */
          queues?: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** IDEMPOTENCY_KEY_REUSED (422) */
    IdempotencyKeyReusedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'IDEMPOTENCY_KEY_REUSED';
        message: string;
        details: {
          /** @description The workflow the key created */
          workflowId: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** AMBIGUOUS_STATE (422) */
    AmbiguousStateError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'AMBIGUOUS_STATE';
        message: string;
        details: {
          state: string;
          /** @description The definitions with a state of that name: name one */
          definitions: string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** RATE_LIMITED (429) */
    RateLimitedError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'RATE_LIMITED';
        message: string;
        details: {
          /** @description How long to wait, ms (also `Retry-After`, in seconds) */
          retryAfterMs?: number;
          limit?: number;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** HEADERS_TOO_LARGE (431) */
    HeadersTooLargeError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'HEADERS_TOO_LARGE';
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** INTERNAL (500) */
    InternalError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'INTERNAL';
        message: string;
        details: {
          /** @description The request id, to find it in the log */
          requestId?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    /** UNAVAILABLE (503) */
    UnavailableError: components['schemas']['Error'] & {
      error: {
        /** @constant */
        code: 'UNAVAILABLE';
        message: string;
        details: {
          cause?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
  };
  responses: {
    /** @description 400: `MALFORMED_JSON`, `BAD_REQUEST` (each operation names those it answers with) */
    BadRequest: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['MalformedJsonError'] | components['schemas']['BadRequestError'];
      };
    };
    /** @description 401: `UNAUTHORIZED` (each operation names those it answers with) */
    Unauthorized: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['UnauthorizedError'];
      };
    };
    /** @description 403: `FORBIDDEN`, `GUARD_REJECTED`, `TOOL_NOT_ALLOWED` (each operation names those it answers with) */
    Forbidden: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json':
          | components['schemas']['ForbiddenError']
          | components['schemas']['GuardRejectedError']
          | components['schemas']['ToolNotAllowedError'];
      };
    };
    /** @description 404: `NOT_FOUND` (each operation names those it answers with) */
    NotFound: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['NotFoundError'];
      };
    };
    /** @description 405: `METHOD_NOT_ALLOWED` (each operation names those it answers with) */
    MethodNotAllowed: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        Allow: components['headers']['Allow'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['MethodNotAllowedError'];
      };
    };
    /** @description 408: `REQUEST_TIMEOUT` (each operation names those it answers with) */
    RequestTimeout: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['RequestTimeoutError'];
      };
    };
    /** @description 409: `NO_TRANSITION`, `WORKFLOW_FINISHED`, `STALE_JOB`, `STALE_TIMER`, `LEASE_NOT_HELD`, `OUTCOME_UNPROVEN`, `CONFLICT`, `NO_MIGRATION` (each operation names those it answers with) */
    Conflict: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json':
          | components['schemas']['NoTransitionError']
          | components['schemas']['WorkflowFinishedError']
          | components['schemas']['StaleJobError']
          | components['schemas']['StaleTimerError']
          | components['schemas']['LeaseNotHeldError']
          | components['schemas']['OutcomeUnprovenError']
          | components['schemas']['ConflictError']
          | components['schemas']['NoMigrationError'];
      };
    };
    /** @description 412: `PRECONDITION_FAILED` (each operation names those it answers with) */
    PreconditionFailed: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PreconditionFailedError'];
      };
    };
    /** @description 413: `PAYLOAD_TOO_LARGE` (each operation names those it answers with) */
    PayloadTooLarge: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PayloadTooLargeError'];
      };
    };
    /** @description 415: `UNSUPPORTED_MEDIA_TYPE` (each operation names those it answers with) */
    UnsupportedMediaType: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['UnsupportedMediaTypeError'];
      };
    };
    /** @description 422: `INVALID_EVENT`, `INVALID_INPUT`, `IDEMPOTENCY_KEY_REUSED`, `AMBIGUOUS_STATE` (each operation names those it answers with) */
    UnprocessableContent: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json':
          | components['schemas']['InvalidEventError']
          | components['schemas']['InvalidInputError']
          | components['schemas']['IdempotencyKeyReusedError']
          | components['schemas']['AmbiguousStateError'];
      };
    };
    /** @description 429: `RATE_LIMITED` (each operation names those it answers with) */
    TooManyRequests: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        'Retry-After': components['headers']['Retry-After'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['RateLimitedError'];
      };
    };
    /** @description 431: `HEADERS_TOO_LARGE` (each operation names those it answers with) */
    RequestHeaderFieldsTooLarge: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['HeadersTooLargeError'];
      };
    };
    /** @description 500: `INTERNAL` (each operation names those it answers with) */
    InternalServerError: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['InternalError'];
      };
    };
    /** @description 503: `UNAVAILABLE` (each operation names those it answers with) */
    ServiceUnavailable: {
      headers: {
        'X-Request-Id': components['headers']['X-Request-Id'];
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['UnavailableError'];
      };
    };
  };
  parameters: {
    /** @description A workflow id: `s<shard>-<unique>` */
    WorkflowId: string;
    /** @description The same tenant and key create one workflow; a repeat of the same request returns it with 200, another request with the key is 422 `IDEMPOTENCY_KEY_REUSED`. */
    'Idempotency-Key': string;
    /** @description The last version the client has (an `EventSource` sends it on reconnect): resume after it. */
    'Last-Event-ID': string;
    /** @description Apply only at this version (an `ETag` like `"12"`); 412 otherwise. */
    'If-Match': string;
  };
  requestBodies: never;
  headers: {
    /** @description The methods the path answers, on a 405 (and on OPTIONS): `GET, HEAD, OPTIONS` */
    Allow: string;
    /** @description The workflow version, quoted: `"12"` */
    ETag: string;
    /** @description The workflow’s URL */
    Location: string;
    /** @description Seconds until a request is allowed */
    'Retry-After': string;
    /** @description The request id (also accepted on the request) */
    'X-Request-Id': string;
  };
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  listWorkflows: {
    parameters: {
      query?: {
        /** @description A queue: a leaf state path (`beforeAction.awaitingApproval`) or its last segment when that is unambiguous in the definition (`awaitingApproval`). Left out: the tenant’s workflow list, newest first */
        state?: string;
        /** @description The definition to list (every version of it). With `state`, left out: the default definition (the first registered, the one a creation without a definition makes) when it has a state of that name, else the one definition that has; when several others do, the answer is 422 `AMBIGUOUS_STATE` listing them. Without `state`, left out: every definition */
        definition?: string;
        /** @description Only workflows running (`active`) or finished (`done`); a queue holds running ones only */
        status?: 'active' | 'done';
        /** @description A workflow id: the list holds that one workflow when the caller’s tenant has it (and it matches the other filters), else nothing. Not with `cursor` (400): it is a page of one */
        id?: string;
        /** @description The `next` of the page before */
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of the list, or of the queue with `state` */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkflowsPage'];
        };
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `AMBIGUOUS_STATE` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  createWorkflow: {
    parameters: {
      query?: never;
      header?: {
        /** @description The same tenant and key create one workflow; a repeat of the same request returns it with 200, another request with the key is 422 `IDEMPOTENCY_KEY_REUSED`. */
        'Idempotency-Key'?: components['parameters']['Idempotency-Key'];
      };
      path?: never;
      cookie?: never;
    };
    /** @description The definition to run and its creation input */
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWorkflowBody'];
      };
    };
    responses: {
      /** @description The existing workflow of this Idempotency-Key */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          Location: components['headers']['Location'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkflowView'];
        };
      };
      /** @description Created */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          Location: components['headers']['Location'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkflowView'];
        };
      };
      /** @description `MALFORMED_JSON`, `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `FORBIDDEN` */
      403: components['responses']['Forbidden'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT`, `IDEMPOTENCY_KEY_REUSED` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getWorkflow: {
    parameters: {
      query?: {
        /** @description Answer once the workflow is past this version (or finished, or `waitMs` has passed): a long poll. Pass the version you have; a version past the workflow's is 400 */
        afterVersion?: number;
        /** @description Answer once the workflow has finished (or `waitMs` has passed): a long poll for its result. Not with `afterVersion` */
        until?: 'finished';
        /** @description How long to wait with `afterVersion` or `until`, ms (default 30000, at most 60000); the view is then answered as it is */
        waitMs?: number;
      };
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The workflow */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkflowView'];
        };
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  sendEvent: {
    parameters: {
      query?: never;
      header?: {
        /** @description Apply only at this version (an `ETag` like `"12"`); 412 otherwise. */
        'If-Match'?: components['parameters']['If-Match'];
      };
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    /** @description The event: `type` (one of the workflow’s definition), `payload` of that type’s schema, optional `eventId` */
    requestBody: {
      content: {
        'application/json': components['schemas']['AnyEvent'];
      };
    };
    responses: {
      /** @description Accepted: the new state and version */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EventAccepted'];
        };
      };
      /** @description `MALFORMED_JSON`, `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `GUARD_REJECTED`, `FORBIDDEN` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `CONFLICT`, `NO_TRANSITION`, `WORKFLOW_FINISHED`, `STALE_JOB`, `LEASE_NOT_HELD`, `OUTCOME_UNPROVEN` */
      409: components['responses']['Conflict'];
      /** @description `PRECONDITION_FAILED` */
      412: components['responses']['PreconditionFailed'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT`, `INVALID_EVENT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getAudit: {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of the trail */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditPage'];
        };
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getArtifact: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
        /** @description The artifact id, or `<id>#<hash>`, URL-encoded */
        ref: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The artifact */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Artifact'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  streamWorkflow: {
    parameters: {
      query?: {
        lastEventId?: string;
        ticket?: string;
      };
      header?: {
        /** @description The last version the client has (an `EventSource` sends it on reconnect): resume after it. */
        'Last-Event-ID'?: components['parameters']['Last-Event-ID'];
      };
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /**
       * @description An event stream: `state` events, then `finished` once the workflow has finished. On the wire:
       *
       *     ```
       *     event: state
       *     id: 10
       *     data: {"workflowId":"s017-abcdefgh","version":10,"eventType":"FRAUD_CLEARED","state":["beforeAction.awaitingApproval"],"status":"active","at":"2026-01-05T10:00:01.000Z"}
       *
       *     event: state
       *     id: 11
       *     data: {"workflowId":"s017-abcdefgh","version":11,"eventType":"REJECTED_BY_REVIEWER","state":["rejected"],"status":"finished","at":"2026-01-05T10:00:02.000Z"}
       *
       *     event: finished
       *     id: 11
       *     data: {"workflowId":"s017-abcdefgh","version":11,"state":["rejected"],"status":"finished","at":"2026-01-05T10:00:02.000Z"}
       *     ```
       */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': components['schemas']['StreamEvent'];
        };
      };
      /** @description The workflow has finished and `Last-Event-ID` is at or past its final version: nothing more will come */
      204: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  createStreamTicket: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The ticket */
      201: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StreamTicket'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getTools: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The tools */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Tools'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  propose: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    /** @description An OpenAI-style tool call */
    requestBody: {
      content: {
        'application/json': components['schemas']['Proposal'];
      };
    };
    responses: {
      /** @description Accepted: the new state and version */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          ETag: components['headers']['ETag'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EventAccepted'];
        };
      };
      /** @description `MALFORMED_JSON`, `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `GUARD_REJECTED`, `FORBIDDEN`, `TOOL_NOT_ALLOWED` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `CONFLICT`, `NO_TRANSITION`, `WORKFLOW_FINISHED`, `STALE_JOB`, `LEASE_NOT_HELD`, `OUTCOME_UNPROVEN` */
      409: components['responses']['Conflict'];
      /** @description `PRECONDITION_FAILED` */
      412: components['responses']['PreconditionFailed'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT`, `INVALID_EVENT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  listDefinitions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The definitions */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DefinitionList'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getDefinition: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @example support */
        id: string;
        /** @example 2 */
        version: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The definition */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Definition'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  diffDefinition: {
    parameters: {
      query?: {
        /** @description The version to compare with; the previous registered version by default */
        from?: string;
      };
      header?: never;
      path: {
        /** @example support */
        id: string;
        /** @example 2 */
        version: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The diff */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DefinitionDiff'];
        };
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  claimJobs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description The queues, how many jobs, the lease time and the longest wait */
    requestBody: {
      content: {
        'application/json': components['schemas']['ClaimJobsBody'];
      };
    };
    responses: {
      /** @description The jobs claimed (possibly none) */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClaimedJobs'];
        };
      };
      /** @description `MALFORMED_JSON` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `FORBIDDEN` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  heartbeatJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The job id from the claim, URL-encoded (it contains `/`) */
        jobId: string;
      };
      cookie?: never;
    };
    /** @description The lease token and the new lease time */
    requestBody: {
      content: {
        'application/json': components['schemas']['HeartbeatBody'];
      };
    };
    responses: {
      /** @description Extended */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Heartbeat'];
        };
      };
      /** @description `MALFORMED_JSON` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `FORBIDDEN` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `LEASE_NOT_HELD` */
      409: components['responses']['Conflict'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  completeJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The job id from the claim, URL-encoded (it contains `/`) */
        jobId: string;
      };
      cookie?: never;
    };
    /** @description The lease token and the result event */
    requestBody: {
      content: {
        'application/json': components['schemas']['CompleteJobBody'];
      };
    };
    responses: {
      /** @description Applied (or the first outcome of a repeat) */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobResult'];
        };
      };
      /** @description `MALFORMED_JSON` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `FORBIDDEN`, `GUARD_REJECTED` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `LEASE_NOT_HELD`, `STALE_JOB`, `WORKFLOW_FINISHED`, `NO_TRANSITION`, `CONFLICT` */
      409: components['responses']['Conflict'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT`, `INVALID_EVENT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  failJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The job id from the claim, URL-encoded (it contains `/`) */
        jobId: string;
      };
      cookie?: never;
    };
    /** @description The lease token, the error class, a message, and whether a retry may help */
    requestBody: {
      content: {
        'application/json': components['schemas']['FailJobBody'];
      };
    };
    responses: {
      /** @description Applied */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['JobResult'];
        };
      };
      /** @description `MALFORMED_JSON` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `FORBIDDEN` */
      403: components['responses']['Forbidden'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `LEASE_NOT_HELD`, `STALE_JOB`, `WORKFLOW_FINISHED`, `CONFLICT` */
      409: components['responses']['Conflict'];
      /** @description `PAYLOAD_TOO_LARGE` */
      413: components['responses']['PayloadTooLarge'];
      /** @description `UNSUPPORTED_MEDIA_TYPE` */
      415: components['responses']['UnsupportedMediaType'];
      /** @description `INVALID_INPUT`, `INVALID_EVENT` */
      422: components['responses']['UnprocessableContent'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  getWorkflowJobs: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description A workflow id: `s<shard>-<unique>` */
        id: components['parameters']['WorkflowId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Its jobs and incidents */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkflowJobs'];
        };
      };
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  listIncidents: {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of incidents */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['IncidentPage'];
        };
      };
      /** @description `BAD_REQUEST` */
      400: components['responses']['BadRequest'];
      /** @description `UNAUTHORIZED` */
      401: components['responses']['Unauthorized'];
      /** @description `RATE_LIMITED` */
      429: components['responses']['TooManyRequests'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
      /** @description `UNAVAILABLE` */
      503: components['responses']['ServiceUnavailable'];
    };
  };
  index: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The links */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Index'];
        };
      };
    };
  };
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The process is up */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
    };
  };
  ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ready */
      200: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Readiness'];
        };
      };
      /** @description Not ready */
      503: {
        headers: {
          'X-Request-Id': components['headers']['X-Request-Id'];
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Readiness'];
        };
      };
    };
  };
  metrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Prometheus text exposition format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description `UNAUTHORIZED`: `WARDEN_METRICS_TOKEN` is set and the request does not carry it */
      401: components['responses']['Unauthorized'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
    };
  };
  openapi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 (the same bytes and `ETag` for the life of the process) */
      200: {
        headers: {
          ETag?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Unchanged: `If-None-Match` names the current `ETag` */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  docs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description An HTML page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
    };
  };
  docsAsset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        file: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
    };
  };
  console: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description An HTML page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
    };
  };
  consoleAsset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        file: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `NOT_FOUND` */
      404: components['responses']['NotFound'];
      /** @description `INTERNAL` */
      500: components['responses']['InternalServerError'];
    };
  };
}
