// The backup as a user meets it: mark two sessions, review with backup on,
// type delete, give the new key's passphrase twice, watch the cleanup
// finish; then the Backups tab, restore with the passphrase and a typed
// confirm — and the two session files are back byte for byte, and pi's own
// SessionManager.listAll() lists them again. The same without the screen:
// `clean --backup`, `backups verify`, `backups restore --yes`.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI, KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { ROOT, TEST_PASSPHRASE } from '../helpers/constants.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

const PI_SESSION_MANAGER = join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'core', 'session-manager.js');
const PI_LISTER = fileURLToPath(new URL('../peers/pi-list-all.mjs', import.meta.url));
const PASS = TEST_PASSPHRASE;

let t: TempEnv;
let env: Record<string, string>;
let pty: PtyScreen | null = null;
let manifest: PiFixtureManifest;

beforeEach(() => {
  t = makeTempEnv('cleanerx-backup-journey-');
  // A cheaper scrypt, honoured only in test mode.
  env = { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
  manifest = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 4,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  targetAgent(t, 'pi');
});

afterEach(() => {
  t.cleanup();
});

/** cleanerx's own dirs: the only places a backup round trip may leave something. */
const ownDirs = (): string[] => [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!, t.env.CLEANERX_DATA_DIR!];

/** The additions that are cleanerx's own dirs (and the parents it created). */
function withoutOwn(diff: string[]): string[] {
  const ownRel = ownDirs().map((o) => o.slice(t.env.HOME!.length + 1));
  return diff.filter((d) => !(d.startsWith('added ') && ownRel.some((o) => o.startsWith(d.slice(6)))));
}

function piListAll(): { id: string; path: string }[] {
  const r = spawnSync(process.execPath, [PI_LISTER, PI_SESSION_MANAGER], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: budget(25_000) });
  if (r.status !== 0) throw new Error(`pi lister failed (${r.status ?? r.signal}): ${r.stderr}`);
  return (JSON.parse(r.stdout) as { sessions: { id: string; path: string }[] }).sessions;
}

it('mark → review with backup → passphrase twice → clean → Backups tab → restore → the sessions are back', async () => {
  const before = hashTree(t.env.HOME!, ownDirs());
  const modeOf = new Map(manifest.sessions.map((s) => [s.file, statSync(s.file).mode & 0o777]));
  expect(piListAll()).toHaveLength(manifest.sessions.length);
  pty = openPty({ args: [], env: env, cols: 100, rows: 30 });
  await pty.waitFor('Sessions (');
  pty.press('2');
  await pty.waitForLine(/^\[ \]   /);
  pty.press('j', KEYS.space, KEYS.space);
  await pty.waitFor(/2 marked · /);
  const marked = pty
    .lines()
    .filter((l) => l.startsWith('[x]'))
    .map((l) => l.slice(6, 60).trim());
  expect(marked, pty.text()).toHaveLength(2);
  // Both marked rows sit under the first project (api-server); other projects reuse some titles.
  const markedSessions = marked.map(
    (title) => manifest.sessions.find((s) => s.cwd.endsWith('/api-server') && (s.name ?? s.firstUser ?? '').startsWith(title.replace(/…$/, '')))!,
  );
  expect(markedSessions.every(Boolean)).toBe(true);
  expect(pty.text()).toMatch(/\[~\] ▾ api-server /);
  const markedIds = markedSessions.map((s) => s.id).sort();

  pty.press('x');
  await pty.waitFor('Review cleanup');
  await pty.waitFor('Backup: off');
  await pty.waitFor('Irreversible');
  pty.press('b');
  await pty.waitFor('Backup: on');
  await pty.waitFor('only the backup can bring it back');
  pty.type('delete');
  pty.press(KEYS.enter);

  // The key does not exist yet: asked twice, masked.
  await pty.waitFor('New backup key passphrase (8+ characters):');
  pty.type(PASS);
  await pty.waitFor('•'.repeat(PASS.length));
  expect(pty.text()).not.toContain(PASS);
  pty.press(KEYS.enter);
  await pty.waitFor('Repeat the passphrase:');
  pty.type(PASS);
  expect(pty.text()).not.toContain(PASS);
  pty.press(KEYS.enter);

  await pty.waitFor('Cleanup complete', 20_000);
  await pty.waitFor('Removed 2 items');
  const backupLine = await pty.waitForLine(/Backup [0-9a-f-]{36} is verified/);
  const backupId = /Backup ([0-9a-f-]{36})/.exec(backupLine)![1]!;
  expect(pty.raw).not.toContain(PASS);

  // The two session files are gone; an encrypted archive of them is in the catalog.
  for (const s of markedSessions) expect(existsSync(s.file)).toBe(false);
  const cxb = join(t.env.CLEANERX_DATA_DIR!, 'backups', `${backupId}.cxb`);
  expect(statSync(cxb).mode & 0o777).toBe(0o600);
  expect(readFileSync(cxb).subarray(0, 21).toString()).toBe('age-encryption.org/v1');
  expect(piListAll().map((s) => s.id)).not.toContain(markedIds[0]);

  pty.press(KEYS.enter);
  await pty.waitForNot('Cleanup complete');
  pty.press('5');
  await pty.waitFor('Backup key');
  const row = await pty.waitForLine(new RegExp(`pi\\s+2\\s+.*${backupId.slice(0, 8)}`));
  expect(row).toMatch(/^\s+\d{4}-\d\d-\d\d/);

  pty.press(KEYS.enter);
  await pty.waitFor('Passphrase to restore:');
  pty.type(PASS);
  pty.press(KEYS.enter);
  await pty.waitFor(/Restore 2 files .* into pi\? Type restore:/, 15_000);
  // Nothing is written before the typed confirm.
  for (const s of markedSessions) expect(existsSync(s.file)).toBe(false);
  pty.type('restore');
  pty.press(KEYS.enter);
  await pty.waitFor('Restore complete', 15_000);
  await pty.waitFor('2 files are back');

  // Identical to the pre-clean tree: bytes and permission bits (pi writes its sessions 0644).
  const after = hashTree(t.env.HOME!, ownDirs());
  expect(withoutOwn(treeDiff(before, after))).toEqual([]);
  for (const s of markedSessions) expect(statSync(s.file).mode & 0o777).toBe(modeOf.get(s.file));

  pty.press(KEYS.enter);
  await pty.waitForNot('Restore complete');
  pty.press('q');
  expect(await pty.waitExit()).toBe(0);

  // pi's own loader lists them again.
  const listed = piListAll();
  expect(listed).toHaveLength(manifest.sessions.length);
  for (const s of markedSessions) expect(listed.find((x) => x.id === s.id)?.path).toBe(s.file);
});

describe('the same without the screen', () => {
  function run(args: string[], input = '') {
    return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input, timeout: budget(30_000) });
  }

  it('clean --backup with the passphrase on stdin, backups list/verify/restore --yes, and a wrong passphrase', () => {
    const before = hashTree(t.env.HOME!, ownDirs());
    const victims = manifest.sessions.filter((s) => s.kind === 'root' && !manifest.sessions.some((x) => x.parentId === s.id)).slice(0, 2);
    expect(victims).toHaveLength(2);
    const ids = victims.flatMap((s) => ['--id', s.id]);

    // Without --yes nothing happens and stdin is not even read.
    const dry = run(['clean', '--agent', 'pi', '--backup', ...ids], `${PASS}\n`);
    expect(dry.status).toBe(2);
    expect(dry.stderr).toMatch(/Nothing was removed: add --yes/);

    const clean = run(['clean', '--agent', 'pi', '--backup', '--yes', ...ids], `${PASS}\n`);
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    expect(clean.stdout).toMatch(/complete: Cleanup complete · 2 items · backup [0-9a-f-]{36}/);
    expect(clean.stdout).not.toContain(PASS);
    for (const s of victims) expect(existsSync(s.file)).toBe(false);

    const list = run(['backups', 'list']);
    expect(list.status).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const id = lines[0]!.split(/\s+/)[0]!;
    expect(clean.stdout).toContain(id);
    expect(lines[0]).toMatch(/ pi .* 2 items /);

    // A wrong passphrase is a refusal, not a usage error (#27.6).
    const wrong = run(['backups', 'verify', id], 'not the passphrase\n');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^cleanerx: Wrong passphrase/);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    const wrongRestore = run(['backups', 'restore', id, '--yes'], 'not the passphrase\n');
    expect(wrongRestore.status).toBe(1);
    expect(wrongRestore.stderr).toMatch(/Wrong passphrase/);
    for (const s of victims) expect(existsSync(s.file)).toBe(false);

    const verify = run(['backups', 'verify', id], `${PASS}\n`);
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/Verified: all 2 entries .* match the manifest/);

    // Without --yes: the preflight lists the files and nothing is written.
    const pre = run(['backups', 'restore', id], `${PASS}\n`);
    expect(pre.status).toBe(2);
    expect(pre.stdout).toMatch(/Restore would create 2 files/);
    for (const s of victims) expect(pre.stdout).toContain(s.file);
    for (const s of victims) expect(existsSync(s.file)).toBe(false);

    const restore = run(['backups', 'restore', id, '--yes'], `${PASS}\n`);
    expect(restore.stderr).toBe('');
    expect(restore.status).toBe(0);
    expect(restore.stdout).toMatch(/Restored 2 files\./);
    expect(withoutOwn(treeDiff(before, hashTree(t.env.HOME!, ownDirs())))).toEqual([]);

    // A second restore finds every destination present and writes nothing.
    const again = run(['backups', 'restore', id, '--yes'], `${PASS}\n`);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already exists; a restore never overwrites anything/);

    const listed = piListAll().map((s) => s.id);
    for (const s of victims) expect(listed).toContain(s.id);
  });
});
