// Interop with the stock tools: an archive cleanerx writes is decrypted by
// Debian's `age`, decompressed by `zstd` and listed/extracted by `tar`; an
// archive made by `tar | zstd | age -e` is read and checked by cleanerx;
// the passphrase-protected identity file opens with `age -d` and the
// passphrase typed at age's own terminal prompt.

import { spawn } from '@lydell/node-pty';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectFiles, MANIFEST_NAME, readArchive, writeArchive, type Manifest } from '../../src/backup/archive.js';
import { createIdentity, exportIdentity, identityPath, unlockIdentity } from '../../src/backup/keystore.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';

const AGE = '/usr/bin/age';
const ZSTD = '/usr/bin/zstd';
const TAR = '/usr/bin/tar';
const PASS = 'correct horse battery staple';

let t: TempEnv;
let dataDir: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-interop-');
  dataDir = ownDirs(t.env).data;
});
afterEach(() => t.cleanup());

function writeFile(path: string, data: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data, { mode: 0o600 });
  chmodSync(path, 0o600);
}

describe('stock tools', () => {
  it('the tools are installed (CI installs Debian age, zstd, tar)', () => {
    for (const tool of [AGE, ZSTD, TAR]) expect(existsSync(tool), tool).toBe(true);
    expect(execFileSync(AGE, ['--version'], { encoding: 'utf8' })).toMatch(/\d+\.\d+/);
  });

  it('age -d -i key.txt x.cxb | zstd -d | tar -t lists it and tar -x gives byte-identical files', async () => {
    const { recipient } = await createIdentity(dataDir, PASS);
    const src = t.env.PI_CODING_AGENT_DIR!;
    const files: Record<string, Buffer> = {
      'sessions/--home-u-src-api--/2026-01-01_s1.jsonl': Buffer.from('{"type":"session","id":"s1"}\n'.repeat(2000)),
      'sessions/--home-u-src-api--/2026-01-02_s2.jsonl': randomBytes(300_000),
      'sessions/--home-u-src-web--/empty.jsonl': Buffer.alloc(0),
      'sessions/--home-u-src-web--/big.bin': randomBytes(9 * 1024 * 1024), // two zstd frames
    };
    for (const [rel, body] of Object.entries(files)) writeFile(join(src, rel), body);
    const collected = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    const cxb = join(t.root, `${randomUUID()}.cxb`);
    const { manifest } = await writeArchive({
      archivePath: cxb,
      recipient,
      agent: 'pi',
      operationId: 'op',
      id: randomUUID(),
      itemCount: 4,
      retentionDays: 30,
      files: collected,
    });

    // The key as `age` reads it: exported after the passphrase check.
    const keyTxt = join(t.root, 'key.txt');
    writeFileSync(keyTxt, await exportIdentity(dataDir, PASS), { mode: 0o600 });

    const sh = (script: string, cwd = t.root) => spawnSync('/bin/bash', ['-o', 'pipefail', '-c', script], { cwd, env: t.env, encoding: 'utf8' });
    const list = sh(`${AGE} -d -i key.txt '${cxb}' | ${ZSTD} -d -q | ${TAR} -t`);
    expect(list.stderr).toBe('');
    expect(list.status).toBe(0);
    const names = list.stdout.trim().split('\n');
    expect(names[0]).toBe(MANIFEST_NAME);
    expect(names.slice(1).sort()).toEqual(
      Object.keys(files)
        .map((f) => `payload/pi_home/${f}`)
        .sort(),
    );

    const out = join(t.root, 'extracted');
    mkdirSync(out);
    const x = sh(`${AGE} -d -i key.txt '${cxb}' | ${ZSTD} -d -q | ${TAR} -x -C '${out}'`);
    expect(x.stderr).toBe('');
    expect(x.status).toBe(0);
    const m = JSON.parse(readFileSync(join(out, MANIFEST_NAME), 'utf8'));
    expect(m).toEqual(manifest);
    // Byte-identical to the source tree (modes included: both are 0600).
    expect(treeDiff(hashTree(src), hashTree(join(out, 'payload', 'pi_home')))).toEqual([]);

    // And a wrong key is refused by age too.
    const other = join(t.root, 'other.txt');
    execFileSync('/usr/bin/age-keygen', ['-o', other], { stdio: 'ignore' });
    const bad = sh(`${AGE} -d -i other.txt '${cxb}' > /dev/null`);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/no identity matched/);
  });

  it('cleanerx reads an archive made by the stock tools: tar (manifest first) | zstd -3 | age -e', async () => {
    const keyTxt = join(t.root, 'key.txt');
    execFileSync('/usr/bin/age-keygen', ['-o', keyTxt], { stdio: 'ignore' });
    const identity = readFileSync(keyTxt, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('AGE-SECRET-KEY-1'))!;
    const recipient = /public key: (age1[0-9a-z]+)/.exec(readFileSync(keyTxt, 'utf8'))![1]!;
    const files: Record<string, Buffer> = {
      'sessions/--home-u-src-api--/2026-01-01_s1.jsonl': Buffer.from('{"type":"session","id":"s1"}\n'.repeat(3000)),
      'sessions/--home-u-src-api--/2026-01-02_s2.jsonl': randomBytes(200_000),
      'sessions/--home-u-src-web--/empty.jsonl': Buffer.alloc(0),
    };
    const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
    const manifest: Manifest = {
      formatVersion: 1,
      id: randomUUID(),
      agent: 'pi',
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      operationId: 'op-stock',
      itemCount: 3,
      originalBytes: Object.values(files).reduce((a, b) => a + b.length, 0),
      archiveBytes: 0,
      entries: Object.entries(files).map(([relativePath, body]) => ({ root: 'pi_home', relativePath, sha256: sha(body), sizeBytes: body.length })),
    };
    const stage = join(t.root, 'stage');
    writeFile(join(stage, MANIFEST_NAME), JSON.stringify(manifest));
    for (const [rel, body] of Object.entries(files)) writeFile(join(stage, 'payload', 'pi_home', rel), body);
    const cxb = join(t.root, 'stock.cxb');
    const names = [MANIFEST_NAME, ...Object.keys(files).map((f) => `payload/pi_home/${f}`)].map((n) => `'${n}'`).join(' ');
    const made = spawnSync('/bin/bash', ['-o', 'pipefail', '-c', `${TAR} -cf - ${names} | ${ZSTD} -3 -q -c | ${AGE} -e -r ${recipient} -o '${cxb}'`], {
      cwd: stage,
      encoding: 'utf8',
    });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);

    const got = new Map<string, string>();
    const m = await readArchive(cxb, identity, { payload: async (e, s) => void got.set(e.relativePath, sha(Buffer.concat(await s.toArray()))) }, 'pi');
    expect(m).toEqual(manifest);
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, sha(v)])));

    // One flipped payload byte in the stock file, and it is refused.
    const b = readFileSync(cxb);
    b[b.length - 100]! ^= 1;
    writeFileSync(cxb, b);
    await expect(readArchive(cxb, identity, {}, 'pi')).rejects.toThrow(/The archive is damaged/);
  });

  it('the identity file opens with `age -d` and the passphrase typed at its terminal prompt', async () => {
    await createIdentity(dataDir, PASS);
    const path = identityPath(dataDir);
    const head = readFileSync(path, 'latin1');
    expect(head.startsWith('age-encryption.org/v1\n')).toBe(true);
    expect(head).toMatch(/^-> scrypt [A-Za-z0-9+/]+ 12$/m);
    const { identity } = await unlockIdentity(dataDir, PASS);

    const decrypted = join(t.root, 'identity.txt');
    const pty = spawn(AGE, ['-d', '-o', decrypted, path], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      env: { ...t.env, TERM: 'xterm-256color' },
      cwd: t.root,
    });
    let screen = '';
    const exited = new Promise<number>((res) => pty.onExit(({ exitCode }) => res(exitCode)));
    const prompted = new Promise<void>((res) =>
      pty.onData((d) => {
        screen += d;
        if (/passphrase/i.test(screen)) res();
      }),
    );
    const timer = setTimeout(() => pty.kill('SIGKILL'), 15_000);
    try {
      await prompted;
      expect(screen).toMatch(/Enter passphrase/);
      // age prints its prompt before it turns echo off: type once the terminal says echo is off (no fixed wait).
      const pts = (pty as unknown as { ptsName: string }).ptsName;
      const echoOff = (): boolean => / -echo /.test(` ${spawnSync('stty', ['-a', '-F', pts], { encoding: 'utf8' }).stdout.replace(/[;\n]/g, ' ')} `);
      for (const end = Date.now() + 60_000; !echoOff(); ) {
        if (Date.now() > end) throw new Error('age never turned its terminal echo off');
        await new Promise((r) => setTimeout(r, 10));
      }
      pty.write(`${PASS}\r`);
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(timer);
    }
    // The passphrase was not echoed.
    expect(screen).not.toContain(PASS);
    const text = readFileSync(decrypted, 'utf8');
    expect(text.split('\n')).toContain(identity);
    expect(text).toMatch(/^# public key: age1/m);
  });
});
