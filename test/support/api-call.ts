/**
 * A JSON call to a running API with a Bearer token, as the console browser tests make beside the
 * page: `apiCaller(() => origin)` gives `call(method, path, token, body?)`, answering status and body.
 */
export function apiCaller(origin: () => string) {
  return async function call(method: string, path: string, token: string, body?: unknown) {
    const response = await fetch(`${origin()}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}
