// Where the backup identity is unlocked from. The default is the
// passphrase-protected identity file (works on any headless server). The OS
// key ring is opt-in: switching to it needs the file's passphrase once, then
// holds a copy of the identity so backups and restores ask for nothing;
// the file stays the recovery path. A key ring failure stops before any
// mutation with what to do.

import { identityToRecipient } from 'age-encryption';
import { createIdentity, KeyStoreError, keyStatus, unlockIdentity, type UnlockedKey } from './keystore.js';
import { identityAccount, keyringCall, type KeyringEnv } from './keyring.js';

export type KeyStoreKind = 'file' | 'keyring';

const SWITCH_BACK = 'switch the key store back to the file in Settings (K) and use your passphrase';

export async function unlockKey(env: KeyringEnv, dataDir: string, store: KeyStoreKind, passphrase: string): Promise<UnlockedKey> {
  if (store === 'file') return unlockIdentity(dataDir, passphrase);
  const a = await keyringCall(env, 'get', identityAccount(dataDir));
  if (!a.ok) throw new KeyStoreError(`The backup key could not be read from the OS key ring (${a.reason}); ${SWITCH_BACK}.`);
  const identity = (a.value ?? '').trim();
  if (!identity.startsWith('AGE-SECRET-KEY-1')) throw new KeyStoreError(`The OS key ring holds no cleanerx backup key; ${SWITCH_BACK}.`);
  try {
    return { identity, recipient: await identityToRecipient(identity) };
  } catch {
    throw new KeyStoreError(`The OS key ring holds an unusable backup key; ${SWITCH_BACK}.`);
  }
}

/** Unlocks the key for a backup, creating the identity file first when there is none. */
export async function unlockOrCreateKey(env: KeyringEnv, dataDir: string, store: KeyStoreKind, passphrase: string): Promise<UnlockedKey> {
  if (store === 'file' && !(await keyStatus(dataDir)).exists) await createIdentity(dataDir, passphrase);
  return unlockKey(env, dataDir, store, passphrase);
}

/**
 * Moves the unlock to `to`. To the key ring: probe it (a child process
 * killed after 3 s), unlock (or create) the file with the passphrase, store
 * the identity and read it back. To the file: remove the key ring's copy.
 * Throws without changing the setting when any step fails.
 */
export async function switchKeyStore(env: KeyringEnv, dataDir: string, to: KeyStoreKind, passphrase: string): Promise<void> {
  const account = identityAccount(dataDir);
  if (to === 'file') {
    const d = await keyringCall(env, 'delete', account);
    // A copy that cannot be removed is reported, but the file route works regardless.
    if (!d.ok && !/no (matching )?entry|not found/i.test(d.reason))
      throw new KeyStoreError(`The OS key ring copy could not be removed (${d.reason}); the key ring stays in use.`);
    return;
  }
  const probe = await keyringCall(env, 'probe', `${account}:probe`);
  if (!probe.ok) throw new KeyStoreError(`No usable OS key ring here (${probe.reason}); the passphrase-protected key file stays in use.`);
  const key = await unlockOrCreateKey(env, dataDir, 'file', passphrase);
  const set = await keyringCall(env, 'set', account, key.identity);
  if (!set.ok) throw new KeyStoreError(`The OS key ring refused the backup key (${set.reason}); the key file stays in use.`);
  const back = await unlockKey(env, dataDir, 'keyring', '');
  if (back.identity !== key.identity) throw new KeyStoreError('The OS key ring returned another key; the key file stays in use.');
}
