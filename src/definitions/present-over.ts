/**
 * A view's `present` may be built over a `render` (`presentFromSpec` is): it presents what that
 * render returns. When it is the view's own `render`, the API hands `present` what it already
 * rendered for the same context and record (a view renders once, not once for itself and once for
 * its presentation). Any other `present` is called as before, without it.
 */
const renders = new WeakMap<object, unknown>();

/** What a `present` is handed beside the context and record: the view `render` returned for them. */
export interface Rendered {
  view: unknown;
}

/** Marks `present` as presenting what `render` returns; returns `present`. */
export function presentOver<T extends object>(present: T, render: unknown): T {
  renders.set(present, render);
  return present;
}

/** Whether the view's `present` was marked as presenting what its `render` (the very function) returns. */
export function presentsOverItsRender(view: { readonly present?: unknown; readonly render: unknown }): boolean {
  const { present, render } = view;
  return typeof present === 'function' && renders.get(present) === render;
}
