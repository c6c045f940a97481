// `cleanerx backups key-store [file|keyring]`: shows or switches where the backup key is unlocked from.

import { t } from '../engine/i18n/index.js';
import { UsageError } from './usage-error.js';
import type { EngineFactory } from './engine-factory.js';
import { readNewPassphrase, type PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

interface KeyStoreOptions {
  /** Absent: say which store unlocks the key. */
  to?: string;
}

interface KeyStoreDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

export async function runKeyStore(opts: KeyStoreOptions, { engine: makeEngine, io, passphrase: reader }: KeyStoreDeps): Promise<number> {
  const engine = await makeEngine({ readOnly: false });
  const { to } = opts;
  const k = await engine.keyInfo();
  if (to === undefined) {
    io.out(say(k.store === 'keyring' ? 'cli.key.keyring' : 'cli.key.file'));
    return 0;
  }
  if (to !== 'file' && to !== 'keyring') throw new UsageError(t('cli.err.keyStore'));
  const passphrase = to === 'keyring' ? await readNewPassphrase(reader, k.exists, t('cli.err.differChanged')) : '';
  await engine.keyStoreSet(to, passphrase);
  io.out(say(to === 'keyring' ? 'cli.key.nowKeyring' : 'cli.key.nowFile'));
  return 0;
}
