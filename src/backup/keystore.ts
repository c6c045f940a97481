// The backup key on a server without a desktop: an age X25519 identity kept
// in $XDG_DATA_HOME/cleanerx/identity.age, encrypted with a passphrase
// (scrypt), 0600 in a 0700 directory, created without overwriting; a
// looser mode is refused. The passphrase is never stored, logged, or put in
// argv or the environment. Debian's `age -d identity.age` opens it too.

import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { constants, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../engine/host/atomic.js';
import { readRegularFileAsync } from '../engine/host/bounded-read.js';
import { passphraseProblem, WrongPassphraseError } from '../engine/core/passphrase-rule.js';

export { MAX_PASSPHRASE, MIN_PASSPHRASE, passphraseProblem } from '../engine/core/passphrase-rule.js';

const IDENTITY_FILE = 'identity.age';
/** An encrypted identity is ~400 bytes. */
const MAX_IDENTITY_BYTES = 64 * 1024;

/**
 * The key store refused or failed (a wrong passphrase, a new one too short,
 * the key ring unusable): not a usage error — the command line was right —
 * so the CLI exits 1 with this one sentence.
 */
export class KeyStoreError extends Error {}

interface KeyStatus {
  path: string;
  exists: boolean;
  /** Why the file cannot be used as it is, when it cannot. */
  problem?: string;
}

export function identityPath(dataDir: string): string {
  return join(dataDir, IDENTITY_FILE);
}

export async function keyStatus(dataDir: string): Promise<KeyStatus> {
  const path = identityPath(dataDir);
  try {
    const st = await fsp.lstat(path);
    if (!st.isFile()) return { path, exists: true, problem: `${path} is not a regular file.` };
    if (st.mode & 0o077) return { path, exists: true, problem: `${path} is readable by others; run chmod 600 ${path} and try again.` };
    return { path, exists: true };
  } catch {
    return { path, exists: false };
  }
}

/** scrypt cost: 2^18 for real keys; tests may lower it (never raise the risk of a real key). */
function workFactor(): number {
  const v = Number(process.env.CLEANERX_SCRYPT_LOG_N);
  return Number.isInteger(v) && v >= 10 && v < 18 && process.env.CLEANERX_TEST_MODE === '1' ? v : 18;
}

export async function createIdentity(dataDir: string, passphrase: string): Promise<{ recipient: string; path: string }> {
  const problem = passphraseProblem(passphrase);
  if (problem) throw new KeyStoreError(problem);
  await ensurePrivateDir(dataDir);
  const identity = await generateX25519Identity();
  const recipient = await identityToRecipient(identity);
  const e = new Encrypter();
  e.setPassphrase(passphrase);
  e.setScryptWorkFactor(workFactor());
  const body = `# created: ${new Date().toISOString()}\n# public key: ${recipient}\n${identity}\n`;
  const ct = await e.encrypt(body);
  const path = identityPath(dataDir);
  // O_EXCL: an existing identity is never overwritten (its backups would become unreadable).
  let fh;
  try {
    fh = await fsp.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyStoreError(`A backup key already exists at ${path}; it is never replaced.`);
    throw err;
  }
  try {
    await fh.writeFile(ct);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return { recipient, path };
}

export interface UnlockedKey {
  identity: string;
  recipient: string;
}

export async function unlockIdentity(dataDir: string, passphrase: string): Promise<UnlockedKey> {
  const status = await keyStatus(dataDir);
  if (!status.exists) throw new KeyStoreError('No backup key exists yet; the first backup creates one.');
  if (status.problem) throw new KeyStoreError(status.problem);
  let ct: Buffer;
  try {
    ct = await readRegularFileAsync(status.path, MAX_IDENTITY_BYTES);
  } catch (e) {
    throw new KeyStoreError((e as Error).message);
  }
  const d = new Decrypter();
  d.addPassphrase(passphrase);
  let text: string;
  try {
    text = await d.decrypt(ct, 'text');
  } catch (e) {
    // age-encryption says this when the passphrase opens no stanza; any other refusal is about the file, and
    // asking again would not help (pinned in test/unit/age-reference.test.ts: a second scrypt stanza, a bad MAC, a cut payload…).
    const why = (e as Error).message;
    if (/no identity matched/.test(why)) throw new WrongPassphraseError('Wrong passphrase for the backup key; try again.');
    throw new KeyStoreError(`${status.path} is damaged or not a passphrase-protected age file (${why}); it cannot be unlocked.`);
  }
  const identity = text.split('\n').find((l) => l.startsWith('AGE-SECRET-KEY-1'));
  if (!identity) throw new KeyStoreError(`${status.path} does not hold an age identity.`);
  return { identity, recipient: await identityToRecipient(identity) };
}

/** The identity in age's text form, for safe keeping outside cleanerx. */
export async function exportIdentity(dataDir: string, passphrase: string): Promise<string> {
  const k = await unlockIdentity(dataDir, passphrase);
  return `# public key: ${k.recipient}\n${k.identity}\n`;
}
