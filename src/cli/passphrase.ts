// The backup key passphrase: from the terminal without echo, or the first line
// of standard input. Never from argv or env.

import type { SafeText } from '../engine/core/text.js';
import { safe } from '../engine/core/text.js';
import { t } from '../engine/i18n/index.js';
import { UsageError } from './usage-error.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

export interface PassphraseReader {
  /** A person is typing (so a new passphrase is asked twice); piped input is read once. */
  readonly interactive: boolean;
  read(prompt: SafeText): Promise<string>;
}

/** Standard input ended before a line (`< /dev/null`, an empty pipe): no passphrase was given at all, which is not an empty one. */
export class NoPassphraseError extends UsageError {
  constructor() {
    super(t('cli.err.noPassphrase'));
  }
}

/** Reads a new passphrase, asking again on a terminal; `differs` is the refusal when the two differ. */
export async function readNewPassphrase(reader: PassphraseReader, exists: boolean, differs: string): Promise<string> {
  const passphrase = await reader.read(say(exists ? 'cli.pass.key' : 'cli.pass.new'));
  if (!exists && reader.interactive && (await reader.read(say('cli.pass.repeat'))) !== passphrase) throw new UsageError(differs);
  return passphrase;
}

export function stdinPassphrase(io: Printer, stdin: NodeJS.ReadStream = process.stdin): PassphraseReader {
  return {
    get interactive() {
      return Boolean(stdin.isTTY);
    },
    read: (prompt) => readFrom(stdin, io, prompt),
  };
}

async function readFrom(stdin: NodeJS.ReadStream, io: Printer, prompt: SafeText): Promise<string> {
  if (!stdin.isTTY) {
    let data = '';
    for await (const chunk of stdin) {
      data += String(chunk);
      if (data.includes('\n')) break;
    }
    if (!data) throw new NoPassphraseError();
    return data.split('\n')[0]!.replace(/\r$/, '');
  }
  io.prompt(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (buf: Buffer): void => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new UsageError(t('cli.err.cancelled')));
        }
        if (ch === '\u007f') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    const done = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.err(safe``);
    };
    stdin.on('data', onData);
  });
}
