// Hostile things in place of the files cleanerx reads (archives, catalogs,
// settings): a FIFO, a symlink, a directory, a huge (sparse) file. Each is
// refused with a plain sentence, at once — a FIFO never hangs the open.

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedReadError, openRegularFile, readRegularFile, readRegularFileAsync, readRegularText } from '../../src/engine/bounded-read.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

function mkfifo(p: string): void {
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
}

/** A FIFO, a symlink to a real file, a directory and a 1 GiB sparse file, each at `<dir>/<name>`. */
function hostile(dir: string, name: string): Record<'fifo' | 'symlink' | 'directory' | 'huge', string> {
  const out = { fifo: join(dir, 'fifo', name), symlink: join(dir, 'symlink', name), directory: join(dir, 'directory', name), huge: join(dir, 'huge', name) };
  for (const p of Object.values(out)) mkdirSync(join(p, '..'), { recursive: true });
  mkfifo(out.fifo);
  writeFileSync(join(dir, 'real-target'), '{"version":1}');
  symlinkSync(join(dir, 'real-target'), out.symlink);
  mkdirSync(out.directory);
  writeFileSync(out.huge, '');
  truncateSync(out.huge, 1024 * 1024 * 1024);
  return out;
}

describe('bounded-read', () => {
  it('reads a regular file within the bound, and refuses one past it', async () => {
    t = makeTempEnv();
    const p = join(t.root, 'f.json');
    writeFileSync(p, 'hello');
    expect(readRegularText(p, 5)).toBe('hello');
    expect((await readRegularFileAsync(p, 5)).toString()).toBe('hello');
    expect(() => readRegularFile(p, 4)).toThrow(/larger than 4 bytes/);
    await expect(readRegularFileAsync(p, 4)).rejects.toThrow(/larger than 4 bytes/);
    writeFileSync(p, '');
    expect(readRegularFile(p, 10).length).toBe(0);
  });

  it('refuses a FIFO, a symlink, a directory and a huge file, at once and with a reason', async () => {
    t = makeTempEnv();
    const h = hostile(t.root, 'x.json');
    const expected: [string, RegExp, string][] = [
      [h.fifo, /is a FIFO \(named pipe\), not a regular file/, 'notRegular'],
      [h.symlink, /is a symbolic link; cleanerx does not follow links/, 'link'],
      [h.directory, /is a directory, not a regular file/, 'notRegular'],
      [h.huge, /is larger than 1 MiB/, 'tooLarge'],
    ];
    for (const [p, msg, reason] of expected) {
      for (const read of [() => readRegularFile(p, 1024 * 1024), () => readRegularFileAsync(p, 1024 * 1024)]) {
        let err: unknown;
        try {
          await read();
        } catch (e) {
          err = e;
        }
        expect(err, p).toBeInstanceOf(BoundedReadError);
        expect((err as Error).message).toMatch(msg);
        expect((err as BoundedReadError).reason).toBe(reason);
      }
    }
    expect(() => openRegularFile(h.fifo)).toThrow(/FIFO/);
  });

  it('keeps ENOENT for a missing file', () => {
    t = makeTempEnv();
    let err: unknown;
    try {
      readRegularFile(join(t.root, 'nope'), 10);
    } catch (e) {
      err = e;
    }
    expect((err as BoundedReadError).code).toBe('ENOENT');
    expect((err as BoundedReadError).reason).toBe('missing');
  });
});
