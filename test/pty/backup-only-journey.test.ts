// Back up only (#29.6) as a user meets it under real tmux at 80×24
// (TERM=tmux-256color): mark a pi session, open the review, `B`, type
// `backup`, give the new key's passphrase twice — the result says where the
// backup is and that nothing was removed; the Backups tab lists it; every
// byte of the home is unchanged. Then the session is lost anyway (removed
// by hand), restored from that backup in the Backups tab, and the home is
// byte for byte what it was.

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { TEST_PASSPHRASE } from '../helpers/constants.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

const PASS = TEST_PASSPHRASE;
let t: TempEnv;
let s: TmuxScreen | null = null;
afterEach(() => {
  s?.dispose();
  s = null;
  t?.cleanup();
});

it('80×24 in tmux: B in the review backs the marked session up, removes nothing, lists the backup; its restore is byte-identical', {
  timeout: budget(300_000),
}, async () => {
  t = makeTempEnv('cleanerx-backup-only-');
  const m = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 3,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  targetAgent(t, 'pi');
  // A cheaper scrypt, honoured only in test mode.
  const env = { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12', TMPDIR: t.root };
  const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!, t.env.CLEANERX_DATA_DIR!];
  const ownRel = own.map((o) => o.slice(t.env.HOME!.length + 1));
  const outsideOwn = (d: string[]): string[] => d.filter((x) => !(x.startsWith('added ') && ownRel.some((o) => o.startsWith(x.slice(6)))));
  const before = hashTree(t.env.HOME!, own);

  s = openTmux({ args: [], env, cols: 80, rows: 24, term: 'tmux-256color' });
  await s.waitFor(/Agent \[pi[\] ]/, 60_000);
  s.press('2');
  await s.waitForLine(/^\[ \]/, 60_000);
  s.press('g', 'j');
  await s.waitFor(/Identifier\s+\S+/, 30_000);
  await s.waitSettled();
  const idEnd = /Identifier\s+…?(\S+)/.exec(s.text())![1]!;
  const session = m.sessions.find((x) => x.id.endsWith(idEnd) || x.id.startsWith(idEnd.replace(/…$/, '')))!;
  expect(session, s.text()).toBeTruthy();
  s.press(KEYS.space);
  await s.waitFor(/1 marked · /);

  s.press('x');
  await s.waitFor('Review cleanup', 30_000);
  s.press('B');
  await s.waitFor('Back up only', 30_000);
  await s.waitFor('Nothing is removed');
  await s.waitFor(/Type backup and Enter to back up/);
  s.type('backup');
  s.press(KEYS.enter);
  await s.waitFor('New backup key passphrase (8+ characters):', 30_000);
  s.type(PASS);
  s.press(KEYS.enter);
  await s.waitFor('Repeat the passphrase:');
  s.type(PASS);
  s.press(KEYS.enter);
  await s.waitFor('Back up only complete', 60_000);
  const result = s.text();
  expect(result).toMatch(/pi: Backed up 1 item to [0-9a-f-]{8}/);
  expect(result).toMatch(/Nothing was removed/);
  // The one archive in cleanerx's backups dir is the one the result names, and where it says it is.
  const dir = join(t.env.CLEANERX_DATA_DIR!, 'backups');
  const archives = readdirSync(dir).filter((f) => f.endsWith('.cxb'));
  expect(archives).toHaveLength(1);
  const backupId = archives[0]!.slice(0, -4);
  // The dialog's text, its wrapped lines joined and spaces dropped (the path breaks where the width ends).
  const flat = result
    .split('\n')
    .filter((l) => l.includes('│'))
    .map((l) => l.slice(l.indexOf('│') + 1, l.lastIndexOf('│')))
    .join('')
    .replace(/\s+/g, '');
  expect(flat).toContain(`${backupId};nothingwasremoved`);
  expect(flat).toContain(`Thebackupis${join(dir, archives[0]!)}`);
  // Nothing of the home changed: the session is where it was, byte for byte.
  expect(existsSync(session.file)).toBe(true);
  expect(outsideOwn(treeDiff(before, hashTree(t.env.HOME!, own)))).toEqual([]);
  const cxb = readFileSync(join(dir, archives[0]!));
  expect(cxb.subarray(0, 21).toString()).toBe('age-encryption.org/v1');

  s.press(KEYS.enter);
  await s.waitForNot('Back up only complete');
  // The marks stay: the sessions are still there.
  expect(s.text()).toMatch(/1 marked · /);
  s.press('5');
  await s.waitFor('Backup key', 30_000);
  await s.waitFor(new RegExp(`pi\\s+1\\s+.*${backupId.slice(0, 8)}`), 30_000);

  // The session is lost after all; its backup brings it back.
  rmSync(session.file);
  s.press(KEYS.enter);
  await s.waitFor('Passphrase to restore:', 30_000);
  s.type(PASS);
  s.press(KEYS.enter);
  await s.waitFor(/Type restore/, 30_000);
  s.type('restore');
  s.press(KEYS.enter);
  await s.waitFor('Restore complete', 60_000);
  s.press(KEYS.enter);
  s.press('q');
  expect(await s.waitExit(15_000)).toBe(0);
  expect(outsideOwn(treeDiff(before, hashTree(t.env.HOME!, own)))).toEqual([]);
});
