/**
 * Errors with a stable `code`. Expected outcomes (a refused event, a stale timer) are values, not
 * errors: these are for broken invariants and programming mistakes.
 */
export class WardenError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** A record was handed to a definition it does not run on. */
export class DefinitionMismatchError extends WardenError {
  constructor(expected: string, actual: string) {
    super('DEFINITION_MISMATCH', `workflow runs on ${actual}, not ${expected}`, { expected, actual });
  }
}

/** A stored snapshot cannot be restored by its definition (for example a state that no longer exists). */
export class CorruptSnapshotError extends WardenError {
  constructor(workflowId: string, cause: unknown) {
    super('CORRUPT_SNAPSHOT', `snapshot of ${workflowId} cannot be restored`, { workflowId }, { cause });
  }
}

/** The machine asked for something the definition cannot turn into a durable command. */
export class DefinitionError extends WardenError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('DEFINITION_ERROR', message, details);
  }
}
