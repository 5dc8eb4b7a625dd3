/** Where a Redis is, said in messages and logs: never with its password. */

/** `url` fit to print: its user and password (and a `password` parameter) masked. */
export function redactRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'REDIS_URL (not a URL)';
  }
  if (parsed.username || parsed.password) {
    parsed.username = '***';
    parsed.password = '';
  }
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.href;
}
