/**
 * The job API in the OpenAPI document: external workers claim jobs, heartbeat, and complete or fail
 * them with the lease token of their claim. Built from the same zod schemas the routes parse and
 * answer with.
 */
import { jsonSchema, ok, ref, type JsonSchema } from './openapi-components.ts';
import type { ErrorCode } from './errors.ts';
import { bodyCodes, errorResponses } from './openapi-errors.ts';
import { answerOf, operationSchemas } from './operation-schemas.ts';
import { jobResponseSchemas } from './responses.ts';

export const jobSchemas: Record<string, JsonSchema> = {
  ClaimJobsBody: jsonSchema(operationSchemas['POST /v1/jobs/claim'].body),
  ClaimedJobs: jsonSchema(jobResponseSchemas.ClaimedJobs, 'output'),
  HeartbeatBody: jsonSchema(operationSchemas['POST /v1/jobs/{jobId}/heartbeat'].body),
  Heartbeat: jsonSchema(jobResponseSchemas.Heartbeat, 'output'),
  CompleteJobBody: jsonSchema(operationSchemas['POST /v1/jobs/{jobId}/complete'].body),
  FailJobBody: jsonSchema(operationSchemas['POST /v1/jobs/{jobId}/fail'].body),
  JobResult: jsonSchema(jobResponseSchemas.JobResult, 'output'),
};

const body = (schema: string, description: string) => ({
  required: true,
  description,
  content: { 'application/json': { schema: ref('schemas', schema) } },
});

const jobIdParameter = {
  name: 'jobId',
  in: 'path',
  required: true,
  description: 'The job id from the claim, URL-encoded (it contains `/`)',
  schema: { type: 'string' },
};

const workerOnly: ErrorCode[] = ['FORBIDDEN', 'NOT_FOUND'];

/** Which tenants a worker service serves, said once for every job route. */
const tenancy =
  'A service acting purely as `worker` (no other role) serves every tenant; a service token with any other role besides `worker` serves only its own tenant: its claims get only that tenant’s jobs (the others stay queued for other workers), and a job id of another tenant is 404 `NOT_FOUND`, exactly as one that does not exist.';

/** What settles a job, said on the routes that report one. */
const refusalsKeepTheJob =
  'A refusal never settles the job: it is audited under an id of its own, the job stays queued, and a corrected result from the lease holder still commits. Only a committed result, or the job given up (its workflow’s dead-letter event), removes it.';
const leased: ErrorCode[] = [...bodyCodes, ...workerOnly, 'LEASE_NOT_HELD'];

export const jobPaths = {
  '/v1/jobs/claim': {
    post: {
      operationId: 'claimJobs',
      summary: 'Claim jobs of external workers’ queues (long poll)',
      description: `For service principals with the \`worker\` role. Waits up to \`waitMs\` for a job of the named \`<definition>:<effect type>\` queues (those in \`WARDEN_EXTERNAL_EFFECTS\`); each claimed job carries a lease token valid until \`leaseExpiresAt\`. At most \`WARDEN_CLAIMS_PER_CALLER\` (16) claims of one caller may be open at once; more are 429 \`RATE_LIMITED\`. ${tenancy}`,
      tags: ['jobs'],
      requestBody: body('ClaimJobsBody', 'The queues, how many jobs, the lease time and the longest wait'),
      responses: {
        '200': ok('The jobs claimed (possibly none)', answerOf('POST /v1/jobs/claim')),
        ...errorResponses([...bodyCodes, ...workerOnly]),
      },
    },
  },
  '/v1/jobs/{jobId}/heartbeat': {
    post: {
      operationId: 'heartbeatJob',
      summary: 'Extend a held lease',
      description: tenancy,
      tags: ['jobs'],
      parameters: [jobIdParameter],
      requestBody: body('HeartbeatBody', 'The lease token and the new lease time'),
      responses: { '200': ok('Extended', answerOf('POST /v1/jobs/{jobId}/heartbeat')), ...errorResponses(leased) },
    },
  },
  '/v1/jobs/{jobId}/complete': {
    post: {
      operationId: 'completeJob',
      summary: 'Report a job’s result with its lease token',
      description: `Applied only with the token of the job’s current, unexpired lease (checked again atomically by the commit); anything else is 409 \`LEASE_NOT_HELD\` and audited. A payload that does not match its schema is 422 and does not use the job up. ${refusalsKeepTheJob} ${tenancy}`,
      tags: ['jobs'],
      parameters: [jobIdParameter],
      requestBody: body('CompleteJobBody', 'The lease token and the result event'),
      responses: {
        '200': ok('Applied (or the first outcome of a repeat)', answerOf('POST /v1/jobs/{jobId}/complete')),
        ...errorResponses([
          ...leased,
          'INVALID_EVENT',
          'STALE_JOB',
          'WORKFLOW_FINISHED',
          'NO_TRANSITION',
          'GUARD_REJECTED',
          'CONFLICT',
        ]),
      },
    },
  },
  '/v1/jobs/{jobId}/fail': {
    post: {
      operationId: 'failJob',
      summary: 'Report a job’s failure with its lease token',
      description: `Becomes the effect’s own failure event, so the workflow’s retry policy decides; an effect without one hands the workflow to a person (\`escalated\`). ${tenancy}`,
      tags: ['jobs'],
      parameters: [jobIdParameter],
      requestBody: body('FailJobBody', 'The lease token, the error class, a message, and whether a retry may help'),
      responses: {
        '200': ok('Applied', answerOf('POST /v1/jobs/{jobId}/fail')),
        ...errorResponses([...leased, 'INVALID_EVENT', 'STALE_JOB', 'WORKFLOW_FINISHED', 'CONFLICT']),
      },
    },
  },
};
