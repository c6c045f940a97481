// Hostile things in place of the files cleanerx reads (archives, catalogs,
// settings): a FIFO, a symlink, a directory, a huge (sparse) file. Each is
// refused with a plain sentence, at once — a FIFO never hangs the open.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateX25519Identity } from 'age-encryption';
import { randomUUID } from 'node:crypto';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { readArchive } from '../../src/backup/archive.js';
import { addRecord, archivePathFor, backupsDir, loadCatalog } from '../../src/backup/catalog.js';
import { createIdentity, identityPath, unlockIdentity } from '../../src/backup/keystore.js';
import { BoundedReadError, openRegularFile, readRegularFile, readRegularFileAsync, readRegularText } from '../../src/engine/host/bounded-read.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { DEFAULT_SETTINGS, loadSettings } from '../../src/engine/host/settings.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// Only in test mode does the key store accept a cheaper scrypt.
process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';

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

type Kind = 'fifo' | 'symlink' | 'directory' | 'huge';
const KINDS: Kind[] = ['fifo', 'symlink', 'directory', 'huge'];
const REFUSAL: Record<Kind, RegExp> = {
  fifo: /is a FIFO \(named pipe\), not a regular file; remove it or move it away\./,
  symlink: /is a symbolic link; cleanerx does not follow links there/,
  directory: /is a directory, not a regular file/,
  huge: /is larger than/,
};

/** Puts a `kind` at `p` (its parent is created). */
function plant(kind: Kind, p: string): void {
  mkdirSync(join(p, '..'), { recursive: true });
  if (kind === 'fifo') mkfifo(p);
  else if (kind === 'symlink') {
    writeFileSync(`${p}.target`, '{"records":[]}');
    symlinkSync(`${p}.target`, p);
  } else if (kind === 'directory') mkdirSync(p);
  else {
    writeFileSync(p, '{');
    truncateSync(p, 8 * 1024 * 1024 * 1024);
  }
}

describe('hostile files in place of what cleanerx reads', () => {
  for (const kind of ['fifo', 'symlink', 'directory'] as Kind[]) {
    it(`an archive that is a ${kind}: verify refuses it at once, with the reason`, async () => {
      t = makeTempEnv();
      const dataDir = ownDirs(t.env).data;
      const pass = 'correct horse battery';
      await createIdentity(dataDir, pass);
      const id = randomUUID();
      const now = new Date().toISOString();
      await addRecord(dataDir, {
        id,
        createdAt: now,
        expiresAt: now,
        archivePath: archivePathFor(dataDir, id),
        archiveBytes: 1,
        originalBytes: 1,
        itemCount: 1,
        operationId: 'op',
        agent: 'pi',
        verifiedAt: now,
      });
      plant(kind, archivePathFor(dataDir, id));
      await expect(readArchive(archivePathFor(dataDir, id), await generateX25519Identity())).rejects.toThrow(REFUSAL[kind]);
      const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
      try {
        await expect(engine.backupVerify(id, pass)).rejects.toThrow(REFUSAL[kind]);
        await expect(engine.backupRestore(id, pass, true)).rejects.toThrow(REFUSAL[kind]);
      } finally {
        await engine.close();
      }
    });
  }

  it('an archive that is a huge sparse file: refused as not an archive, after reading only its header', async () => {
    t = makeTempEnv();
    const p = join(t.root, 'huge.cxb');
    plant('huge', p);
    await expect(readArchive(p, await generateX25519Identity())).rejects.toThrow(/cannot be decrypted with this key/);
  });

  for (const kind of KINDS) {
    it(`a catalog that is a ${kind}: refused with the reason, never read`, async () => {
      t = makeTempEnv();
      const dataDir = ownDirs(t.env).data;
      plant(kind, join(backupsDir(dataDir), 'catalog.json'));
      await expect(loadCatalog(dataDir)).rejects.toThrow(REFUSAL[kind]);
      await expect(loadCatalog(dataDir)).rejects.toThrow(/^Cannot read the backup catalog: /);
    });

    it(`settings that are a ${kind}: defaults, with a warning that says why`, async () => {
      t = makeTempEnv();
      const dir = t.env.CLEANERX_CONFIG_DIR!;
      plant(kind, join(dir, 'config.json'));
      const loaded = await loadSettings(dir);
      expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
      const why = {
        fifo: /is not a regular file; using defaults\./,
        symlink: /is a symbolic link \(not followed\); using defaults\./,
        directory: /is not a regular file; using defaults\./,
        huge: /is too large; using defaults\./,
      }[kind];
      expect(loaded.warning).toMatch(why);
    });
  }

  it('a catalog that is not JSON says what to do', async () => {
    t = makeTempEnv();
    const dataDir = ownDirs(t.env).data;
    mkdirSync(backupsDir(dataDir), { recursive: true });
    writeFileSync(join(backupsDir(dataDir), 'catalog.json'), '{"records": [');
    await expect(loadCatalog(dataDir)).rejects.toThrow(/is not valid JSON; move it away to start a new catalog/);
  });

  it('an identity file swapped for a FIFO after its check is refused, not waited on', async () => {
    t = makeTempEnv();
    const dataDir = ownDirs(t.env).data;
    await createIdentity(dataDir, 'correct horse battery');
    rmSync(identityPath(dataDir));
    mkfifo(identityPath(dataDir));
    chmodSync(identityPath(dataDir), 0o600);
    // keyStatus's lstat already refuses a FIFO; the open itself refuses it too (the swap can come after the lstat).
    await expect(unlockIdentity(dataDir, 'correct horse battery')).rejects.toThrow(/not a regular file/);
  });
});
