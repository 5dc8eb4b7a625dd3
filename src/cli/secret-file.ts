/**
 * The generated secret of a server started without WARDEN_JWT_SECRET, kept in a file only its
 * owner can read (WARDEN_SECRET_FILE, `.warden/secret` by default) so that `warden token` in the
 * same directory mints tokens that server accepts, and a restart keeps them valid.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateSecret } from '../api/auth.ts';
import { ConfigError } from '../config.ts';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** The secret kept in `path`, or undefined when there is none; refuses a file others may read. */
export function readSecretFile(path: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(`${path} may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 ${path}`);
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 16) throw new ConfigError(`${path} holds no usable secret (16 characters or more): delete it`);
  return secret;
}

/**
 * The secret in `path`, created there (mode 0600, its directory 0700) when there is none. Two
 * servers starting at once agree: the file appears whole or not at all, and the first one wins.
 */
export function readOrCreateSecretFile(path: string): { secret: string; created: boolean } {
  const existing = readSecretFile(path);
  if (existing) return { secret: existing, created: false };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(draft, `${generateSecret()}\n`, { mode: 0o600, flag: 'wx' });
  let created = true;
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    unlinkSync(draft);
  }
  const secret = readSecretFile(path);
  if (!secret) throw new Error(`${path} vanished while it was created`);
  return { secret, created };
}

/**
 * Writes `text` to `path` readable only by its owner (mode 0600, a directory it creates 0700),
 * whatever was there: a new file is written beside it and renamed over it, so no reader ever sees
 * it with a wider mode or half written.
 */
export function writePrivateFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(draft, text, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(draft, path);
  } catch (error) {
    unlinkSync(draft);
    throw error;
  }
}
