/**
 * What an audit entry keeps of the payload it was decided on, so the trail reconstructs the causal
 * path without the payload itself: the person's stated reason, a digest of the payload as received,
 * and the artifacts it cites. Pure and bounded: a payload of any shape gives a small answer.
 */
import { canonicalJson, sha256Hex } from './canonical-json.ts';

/** The payload fields an entry's `reason` is taken from, the first that holds text. */
export const auditReasonFields = ['reason', 'note', 'resolution', 'instructions', 'comment'] as const;
/** Longest `reason` kept (characters); a longer one is cut and ends in `…`. */
export const maxAuditReason = 500;
/** Most artifact references kept per entry. */
export const maxAuditArtifactRefs = 32;
/** How deep into the payload artifact references are looked for. */
const maxDepth = 6;

export interface AuditEvidence {
  reason: string | null;
  payloadDigest: string | null;
  artifactRefs: string[];
}

export const noEvidence: AuditEvidence = { reason: null, payloadDigest: null, artifactRefs: [] };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const bounded = (value: string) => (value.length > maxAuditReason ? `${value.slice(0, maxAuditReason - 1)}…` : value);

function reasonOf(payload: Record<string, unknown>): string | null {
  for (const name of auditReasonFields) {
    const value = Object.hasOwn(payload, name) ? payload[name] : undefined;
    if (typeof value === 'string' && value.trim().length > 0) return bounded(value);
  }
  return failureReasonOf(payload);
}

/**
 * A failure report's error, `<class>: <message>`, in either layout (`{ error: { class, message } }`
 * or `{ errorClass, message }`): why an effect's attempt failed, else kept by no entry.
 */
function failureReasonOf(payload: Record<string, unknown>): string | null {
  const error = isRecord(payload.error) ? payload.error : { class: payload.errorClass, message: payload.message };
  const { class: errorClass, message } = error;
  if (typeof errorClass !== 'string' || typeof message !== 'string' || message.trim().length === 0) return null;
  return bounded(`${errorClass}: ${message}`);
}

const maxArtifactIdLength = 200;
const artifactHash = /^sha256:[0-9a-f]{64}$/;

/** Every `{ id, hash }` the payload holds, as `<id>#<hash>`, in the order met, without repeats. */
function artifactRefsOf(payload: unknown): string[] {
  const refs = new Set<string>();
  const visit = (value: unknown, depth: number) => {
    if (refs.size >= maxAuditArtifactRefs || depth > maxDepth) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    if (typeof value.id === 'string' && typeof value.hash === 'string') {
      // Only what an artifact reference can be: a short id and a content hash. Anything else is the
      // caller's text, which must not grow the trail (refused events are audited too).
      if (value.id.length > 0 && value.id.length <= maxArtifactIdLength && artifactHash.test(value.hash)) {
        refs.add(`${value.id}#${value.hash}`);
      }
      return;
    }
    for (const child of Object.values(value)) visit(child, depth + 1);
  };
  visit(payload, 0);
  return [...refs];
}

/** SHA-256 of a text's UTF-8 bytes as lower-case hex: `sha256Hex`, or the same digest computed elsewhere. */
export type Sha256Hex = (text: string) => string;

/**
 * The evidence of a payload as received (before validation); no payload, no evidence. `sha256`
 * computes the digest: the engine's pure `sha256Hex` unless its caller hands it another
 * implementation of the same function (the process's `node:crypto`, which is several times faster).
 */
export function auditEvidenceOf(payload: unknown, sha256: Sha256Hex = sha256Hex): AuditEvidence {
  if (payload === undefined) return noEvidence;
  let payloadDigest: string | null = null;
  try {
    payloadDigest = `sha256:${sha256(canonicalJson(payload))}`;
  } catch {
    // Not JSON (a BigInt, a cycle): only an in-process caller can send one; it gets no digest.
  }
  return {
    reason: isRecord(payload) ? reasonOf(payload) : null,
    payloadDigest,
    artifactRefs: artifactRefsOf(payload),
  };
}
