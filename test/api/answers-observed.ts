/**
 * Holds the routes' answers to the table of operation schemas: given as `ApiDeps.observeValidation`,
 * it records each operation that answered through `respond` and every one whose answer was typed
 * by a schema other than the very object the table (and so the OpenAPI document) gives it.
 */
import type { z } from 'zod';
import type { ApiDeps } from '../../src/api/context.ts';
import { documentedPath, operationSchemas, type OperationSchemas } from '../../src/api/operation-schemas.ts';

export interface ObservedAnswers {
  observeValidation: NonNullable<ApiDeps['observeValidation']>;
  /** `METHOD /path` of each operation that answered through `respond`. */
  answered: Set<string>;
  /** `METHOD /path` of each answer typed by another schema than the table's. */
  mismatched: string[];
}

export function observedAnswers(also?: ApiDeps['observeValidation']): ObservedAnswers {
  const table: Record<string, OperationSchemas> = operationSchemas;
  const answered = new Set<string>();
  const mismatched: string[] = [];
  return {
    answered,
    mismatched,
    observeValidation(route: string, part: 'query' | 'body' | 'response', schema: z.ZodType) {
      also?.(route, part, schema);
      if (part !== 'response') return;
      const [method, path] = route.split(' ');
      const operation = `${method} ${documentedPath(path ?? '')}`;
      answered.add(operation);
      if (table[operation]?.response !== schema) mismatched.push(operation);
    },
  };
}
