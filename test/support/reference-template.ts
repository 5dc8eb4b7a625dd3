/**
 * The presentation's template filling as first written (a regular expression pass per render): the
 * oracle the compiled templates of `src/authoring/presentation.ts` are held to, and the "old" side of
 * `npm run bench:routes`.
 */
const placeholder = /\{([A-Za-z0-9_.]+)(?:\?([^|}]*)\|([^}]*))?\}/g;

function valueAt(view: unknown, path: string): unknown {
  let value = view;
  for (const part of path.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (Array.isArray(value)) return value.length === 0 ? null : value.map((v) => text(v) ?? '').join('; ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A template filled from `view`, or null when a placeholder outside `[…]` has no value. */
export function referenceFillTemplate(template: string, view: unknown): string | null {
  const fill = (part: string) => {
    const shown: (string | null)[] = [];
    const filled = part.replace(placeholder, (_, path: string, yes: string | undefined, no: string) => {
      const value = valueAt(view, path);
      const one = yes === undefined || value === null || value === undefined ? text(value) : value === true ? yes : no;
      shown.push(one);
      return one ?? '';
    });
    return shown.includes(null) ? null : filled;
  };
  // One pass over the template: a value filled in is never read as a template again (a reason a
  // person typed may hold braces).
  const placeholders: (string | null)[] = [];
  const filled = template.replace(
    new RegExp(`\\[([^\\]]*)\\]|${placeholder.source}`, 'g'),
    (whole, optional?: string) => {
      if (optional !== undefined) return fill(optional) ?? '';
      const one = fill(whole);
      placeholders.push(one);
      return one ?? '';
    },
  );
  return placeholders.includes(null) ? null : filled;
}
