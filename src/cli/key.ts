// `cleanerx backups key-store [file|keyring]`: shows or switches where the backup key is unlocked from.

import { safe } from '../engine/core/text.js';
import { UsageError } from '../engine/host/own-dirs.js';
import type { EngineFactory } from './engine-factory.js';
import { readNewPassphrase, type PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';

export interface KeyStoreOptions {
  /** Absent: say which store unlocks the key. */
  to?: string;
}

export interface KeyStoreDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

export async function runKeyStore(opts: KeyStoreOptions, { engine: makeEngine, io, passphrase: reader }: KeyStoreDeps): Promise<number> {
  const engine = await makeEngine({ readOnly: false });
  const { to } = opts;
  const k = await engine.keyInfo();
  if (to === undefined) {
    io.out(k.store === 'keyring' ? safe`The OS key ring unlocks the backup key.` : safe`The backup key is unlocked by its passphrase (the file).`);
    return 0;
  }
  if (to !== 'file' && to !== 'keyring') throw new UsageError('backups key-store takes "file" or "keyring".');
  const passphrase = to === 'keyring' ? await readNewPassphrase(reader, k.exists, 'The passphrases differ; nothing changed.') : '';
  await engine.keyStoreSet(to, passphrase);
  io.out(to === 'keyring' ? safe`The backup key is now unlocked by the OS key ring.` : safe`The backup key is unlocked by its passphrase again.`);
  return 0;
}
