/**
 * `warden token --sub alice --tenant demo --roles support_approver --claim approvalLimit=500`: mints a
 * Bearer token signed with WARDEN_JWT_SECRET, or else with the secret a server started without it
 * keeps in WARDEN_SECRET_FILE (`.warden/secret`). `--claim name=value` (repeatable) adds a claim a
 * definition reads; the value is JSON when it parses as JSON (`500`, `true`, `["a"]`), text otherwise.
 */
import { mintToken } from '../api/auth.ts';
import type { Config } from '../config.ts';
import type { AnyWorkflowBundle } from '../definitions/workflow.ts';
import { claimsSchema, type ClaimValue } from '../engine/principal.ts';
import { readSecretFile } from './secret-file.ts';

const usage =
  'usage: warden token --sub ID --tenant TENANT --roles role1,role2 [--claim name=value]... [--kind user|service]';

/** Prints the claims the registered definitions read, one line each, after the usage. */
function printClaims(bundles: readonly AnyWorkflowBundle[], print: (line: string) => void): void {
  const lines = bundles.flatMap((bundle) =>
    Object.entries(bundle.claims ?? {}).map(([name, spec]) => `  ${name} (${bundle.id}): ${spec.description}`),
  );
  if (lines.length > 0) print('claims the registered definitions read:');
  for (const line of lines) print(line);
}

/** `name=value` pairs as claims: a value that parses as JSON is that JSON, any other is text. */
export function parseClaims(pairs: readonly string[]): Record<string, ClaimValue> | string {
  const claims: Record<string, ClaimValue> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) return `--claim ${pair}: write it as name=value`;
    const text = pair.slice(at + 1);
    let value: ClaimValue;
    try {
      value = JSON.parse(text) as ClaimValue;
    } catch {
      value = text;
    }
    claims[pair.slice(0, at)] = value;
  }
  const parsed = claimsSchema.safeParse(claims);
  if (parsed.success) return parsed.data;
  // A value JSON cannot carry (1e999 parses as Infinity) is named with its claim, not as "Invalid input".
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.');
    if (issue.code === 'invalid_union' || issue.code === 'invalid_type') {
      return `--claim ${name}: not a value a token can carry (JSON text, a finite number, true, false, null, or arrays and objects of those)`;
    }
    return name ? `--claim ${name}: ${issue.message}` : `--claim: ${issue.message}`;
  });
  return problems.join('; ');
}

export async function token(
  config: Config,
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  print: (line: string) => void,
  /** Where every refusal goes (stderr); the token alone goes to `print`. */
  printError: (line: string) => void,
  /** The registered workflows, loaded only to list the claims they read after a usage error. */
  bundles: () => Promise<readonly AnyWorkflowBundle[]> = () => Promise.resolve([]),
): Promise<number> {
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const sub = text('sub');
  const tenant = text('tenant');
  const roles = text('roles');
  if (values.limit !== undefined) {
    printError('--limit is no longer an option: pass the claim by its name, --claim name=value');
    printClaims(await bundles(), printError);
    return 2;
  }
  if (!sub || !tenant || !roles) {
    printError(usage);
    printClaims(await bundles(), printError);
    return 2;
  }
  const secret = config.WARDEN_JWT_SECRET ?? readSecretFile(config.WARDEN_SECRET_FILE);
  if (!secret) {
    printError(
      `no secret to sign with: set WARDEN_JWT_SECRET (the server's), or run this in the directory where ` +
        `\`npm start\` runs without it (it keeps its secret in ${config.WARDEN_SECRET_FILE})`,
    );
    return 2;
  }
  const kind = text('kind') ?? 'user';
  if (kind !== 'user' && kind !== 'service') {
    printError('--kind must be user or service (an external worker is a service with the worker role)');
    return 2;
  }
  const pairs = [values.claim ?? []].flat().filter((pair): pair is string => typeof pair === 'string');
  const claims = parseClaims(pairs);
  if (typeof claims === 'string') {
    printError(claims);
    return 2;
  }
  try {
    print(await mintToken(secret, { sub, tenant, roles: roles.split(','), kind, claims }));
  } catch (error) {
    printError(`--claim: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  return 0;
}
