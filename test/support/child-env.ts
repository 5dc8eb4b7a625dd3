/**
 * The environment of a process a test starts. An operator's shell exports `REDIS_URL`,
 * `WARDEN_JWT_SECRET` and the like, and `npm test` adds npm's and vitest's own: a child that
 * inherited them would run against another Redis, sign with another secret, print no starter
 * tokens. So a test's process gets the shell's environment without any of those (what Node, npm,
 * bash and curl need stays: `PATH`, `HOME`, `TMPDIR`, the locale), then exactly the variables the
 * test names.
 */

/**
 * What Warden reads (its own variables, Redis, OpenTelemetry, the model, the server's address and
 * logs), what npm and vitest set for themselves, and Node's options.
 */
const notInherited =
  /^(WARDEN_|REDIS_|OTEL_|OPENAI_|npm_|VITEST|PORT$|HOST$|LOG_LEVEL$|LOG_FORMAT$|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$)/i;

/** This process's environment without the variables above, then `vars` (an `undefined` leaves one out). */
export function childEnv(vars: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !notInherited.test(name));
  const given = Object.entries(vars).filter(([, value]) => value !== undefined);
  const named = new Set(Object.keys(vars));
  return Object.fromEntries([...inherited.filter(([name]) => !named.has(name)), ...given]);
}

/**
 * A shell as an operator's is: Redis elsewhere, a secret of its own, a prefix, a port. A test that
 * starts processes stubs these (`vi.stubEnv`) to show that its processes run with what it gives them.
 */
export const operatorShell: Record<string, string> = {
  REDIS_URL: 'redis://127.0.0.1:1',
  WARDEN_JWT_SECRET: 'an-operator-secret-that-no-test-process-may-use',
  WARDEN_PREFIX: 'operator',
  WARDEN_SECRET_FILE: '/nonexistent/operator-secret',
  PORT: '1',
  LOG_LEVEL: 'fatal',
  LOG_FORMAT: 'pretty',
};
