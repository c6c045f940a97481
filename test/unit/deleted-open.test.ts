// Space held by deleted files (#29.3): a file of the agent's store deleted
// while a process holds it open is a read-only row with the bytes it holds
// and the process that holds it (pid, name, user); a deleted file outside
// the store, and one closed since, are not listed.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
const holders: ChildProcess[] = [];
afterEach(() => {
  for (const h of holders.splice(0)) h.kill('SIGKILL');
  t?.cleanup();
});

const GiB = 1024 ** 3;

/** A real process holding `file` open on fd 1, mirrored into the test's /proc; then the file is deleted. */
function holdThenDelete(file: string, name: string): ChildProcess {
  const fd = openSync(file, 'r');
  const h = spawn('sleep', ['120'], { stdio: ['ignore', fd, 'ignore'] });
  closeSync(fd);
  holders.push(h);
  fakeProcess(t.procRoot, h.pid!, name, [name, '--resume']);
  mkdirSync(join(t.procRoot, String(h.pid), 'fd'));
  symlinkSync(`/proc/${h.pid}/fd/1`, join(t.procRoot, String(h.pid), 'fd', '1'));
  rmSync(file);
  return h;
}

it('a deleted 1 GiB file still open in a process is named with its bytes and its holder; nothing is offered', async () => {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  buildClaudeFixture({ configDir: home, projects: 1, sessionsPerProject: 2, seed: 3, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
  const big = join(home, 'debug', 'huge.txt');
  mkdirSync(join(home, 'debug'), { recursive: true });
  expect(spawnSync('fallocate', ['-l', '1G', big]).status).toBe(0);
  // What closing it frees: its blocks (at least the 1 GiB fallocate gave it), measured before it is deleted.
  const allocated = statSync(big).blocks * 512;
  expect(allocated).toBeGreaterThanOrEqual(GiB);
  const h = holdThenDelete(big, 'claude');
  // Outside the store: not this agent's space.
  const elsewhere = join(t.root, 'elsewhere.bin');
  expect(spawnSync('fallocate', ['-l', '8M', elsewhere]).status).toBe(0);
  holdThenDelete(elsewhere, 'vim');

  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('claude');
  const rows = engine.snapshot(sum.snapshotId).items.filter((i) => i.id.startsWith('held-deleted:'));
  expect(rows).toHaveLength(1);
  const row = rows[0]!;
  expect(row.bytes).toBe(allocated);
  expect(row.selectable).toBe(false);
  expect(row.label).toBe('Deleted but still open · huge.txt');
  expect(row.subtitle).toMatch(new RegExp(`pid ${h.pid} \\(claude\\) still holds it open: quit it to free 1\\.1 GB$`));
  expect(row.blockedReason).toMatch(new RegExp(`pid ${h.pid} \\(claude, \\w+\\)`));
  expect(row.blockedReason).toContain('1.1 GB');
  expect(row.metadata.deletedPath).toBe(big);
  expect(sum.deletedOpen).toEqual({ files: 1, bytes: row.bytes });

  // Closed since (the process ended): gone from the next scan.
  h.kill('SIGKILL');
  await new Promise((r) => h.once('exit', r));
  rmSync(join(t.procRoot, String(h.pid)), { recursive: true });
  const again = await engine.scan('claude');
  expect(engine.snapshot(again.snapshotId).items.some((i) => i.id.startsWith('held-deleted:'))).toBe(false);
  expect(again.deletedOpen).toBeUndefined();
}, 120_000);

it('a deleted sparse 1 GiB file is named with what closing it frees (its blocks), not its apparent size', async () => {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  buildClaudeFixture({ configDir: home, projects: 1, sessionsPerProject: 1, seed: 4, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
  mkdirSync(join(home, 'debug'), { recursive: true });
  const sparse = join(home, 'debug', 'sparse.txt');
  // 1 GiB long, one 4 KiB block written at its end: no disk cost.
  const fd = openSync(sparse, 'w');
  writeSync(fd, Buffer.alloc(4096, 0x61), 0, 4096, GiB - 4096);
  closeSync(fd);
  const st = statSync(sparse);
  expect(st.size).toBe(GiB);
  const held = st.blocks * 512;
  expect(held).toBeLessThan(1024 * 1024);
  const h = holdThenDelete(sparse, 'claude');
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('claude');
  const row = engine.snapshot(sum.snapshotId).items.find((i) => i.id.startsWith('held-deleted:'));
  expect(row, 'the sparse file is listed').toBeTruthy();
  expect(row!.bytes).toBe(held);
  expect(row!.subtitle).toMatch(new RegExp(`pid ${h.pid} \\(claude\\) still holds it open: quit it to free [\\d.]+ KB$`));
  expect(sum.deletedOpen).toEqual({ files: 1, bytes: held });
}, 120_000);
