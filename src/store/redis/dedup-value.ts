/**
 * The value stored under a de-duplication key: `<workflow id> <fingerprint>`. Values written before
 * fingerprints are a bare workflow id; they still name their workflow and match any request.
 */

/** The value `transition.lua` stores under a de-duplication key (never `'0'`, which means "no key"). */
export function formatDedupValue(workflowId: string, fingerprint: string | undefined): string {
  if (fingerprint !== undefined && /\s/.test(fingerprint)) throw new Error('a fingerprint has no whitespace');
  return fingerprint === undefined ? workflowId : `${workflowId} ${fingerprint}`;
}

/** The workflow and fingerprint (null for an old bare value) of a stored de-duplication value. */
export function parseDedupValue(value: string): { workflowId: string; fingerprint: string | null } {
  const space = value.indexOf(' ');
  if (space < 0) return { workflowId: value, fingerprint: null };
  return { workflowId: value.slice(0, space), fingerprint: value.slice(space + 1) };
}
