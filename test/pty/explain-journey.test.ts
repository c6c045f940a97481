// Why a session is this big, in the app (#29.5): on the demo's Codex store,
// `b` on a session row asks the worker for the session's bytes by record type
// and the detail pane shows the breakdown (the same figures as `cleanerx
// explain --json`), under real tmux at 80×24; nothing on disk changes. The
// database's bytes per table (#29.4) are reachable too: Logs & caches → the
// Codex log database → p shows them.

import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { buildStore, CODEX_BIN, codexHome, installation } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: TmuxScreen;

beforeEach(() => {
  t = makeTempEnv();
});

afterEach(() => {
  s?.dispose();
  t.cleanup();
});

const KIND_LINE = /^(session metadata|messages|other events|turn context)\s+[\d.]+ [KMG]?B\s+\d+%\s+\d+ records?$/;

it(
  '80×24 in tmux: b on a Codex session shows its bytes by record type in the detail pane',
  async () => {
    s = openTmux({ args: ['--demo', '--agent', 'codex'], env: { ...t.env, TMPDIR: t.root }, cols: 80, rows: 24, term: 'tmux-256color' });
    await s.waitFor(/Agent \[Codex/, 60_000);
    s.press('2');
    await s.waitForLine(/^\[ \] {3}/, 60_000);
    // The first session row of the tree (the cursor starts on its project).
    for (let i = 0; i < 6 && !/^\s*\[ \] {3}/.test(s.lines().find((l) => l.includes('[ ]')) ?? ''); i++) s.press('j');
    s.press('j');
    await s.waitSettled(30_000);
    s.press('b');
    const screen = await s.waitFor(/Why this session is [\d.]+ [KMG]?B: bytes by record type/, 60_000);
    await s.waitSettled(30_000);
    const lines = s.lines().map((l) => l.trim());
    expect(screen).toContain('Preview · why this size, read-only');
    const kinds = lines.filter((l) => KIND_LINE.test(l));
    expect(kinds.length, s.text()).toBeGreaterThanOrEqual(2);
    for (const l of s.lines()) expect(l.length).toBeLessThanOrEqual(80);
    // The pane has the keys now; Tab back to the list.
    expect(s.text()).toMatch(/b why big/);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(180_000),
);

it(
  "80×24 in tmux: the Codex log database's bytes per table are one p away in Logs & caches",
  async () => {
    buildStore(t, { threads: 3, seed: 11 });
    // The first scan runs Codex's app-server, which creates logs_2.sqlite as codex 0.171 lays it out.
    t.env.PATH = `${dirname(CODEX_BIN)}:/usr/bin:/bin`;
    await codexAdapter.scan(installation(t), t.ctx, () => undefined);
    const db = join(codexHome(t), 'logs_2.sqlite');
    expect(existsSync(db)).toBe(true);
    const d = new Database(db);
    const ins = d.prepare("INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, estimated_bytes) VALUES (?, ?, 'INFO', 'test', ?, ?)");
    d.transaction(() => {
      for (let i = 0; i < 3000; i++) ins.run(Math.floor(Date.now() / 1000) - i, i, `row ${i} ${'x'.repeat(400)}`, 400);
    })();
    d.pragma('wal_checkpoint(TRUNCATE)');
    d.close();
    // As a slower machine's app-server leaves them (CI did): more protected rows above the database's.
    for (const extra of ['goals_1.sqlite-shm', 'goals_1.sqlite-wal', 'state_5.sqlite-shm']) {
      const f = join(codexHome(t), extra);
      if (!existsSync(f)) closeSync(openSync(f, 'a'));
    }
    s = openTmux({ args: ['--agent', 'codex'], env: { ...t.env, TMPDIR: t.root }, cols: 80, rows: 24, term: 'tmux-256color' });
    await s.waitFor(/Agent \[Codex/, 60_000);
    s.press('4');
    await s.waitForLine(/^ - {2}protected /, 60_000);
    await s.waitSettled(30_000);
    // Down to the database's row (it may sit below the fold at 24 rows: the app-server can leave
    // goals_1.sqlite-shm and others above it): the detail pane under the list then names its path.
    const onRow = (): boolean => s.lines().some((l) => /^Path\s+\S*\/logs_2\.sqlite$/.test(l));
    for (let i = 0; i < 40 && !onRow(); i++) {
      s.press('j');
      await s.waitSettled(30_000);
    }
    expect(onRow(), s.text()).toBe(true);
    s.press('p');
    await s.waitFor('Bytes per table (indexes included, read only)', 60_000);
    await s.waitSettled(30_000);
    const line = s.lines().find((l) => /^logs\s+[\d.]+ [KM]B\s+\d+%/.test(l.trim()));
    expect(line, s.text()).toBeTruthy();
    expect(line!.trim()).toMatch(/ — old rows: the log item/);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(240_000),
);

it(
  '80×24 in tmux: explaining a huge pi session runs in the worker; Esc cancels the busy state at once and the keys answer',
  async () => {
    const home = t.env.PI_CODING_AGENT_DIR!;
    const m = buildPiFixture({ agentDir: home, cwdRoot: join(t.env.HOME!, 'src'), projects: 1, sessionsPerProject: 2, seed: 9, forkRate: 0 });
    const big = m.sessions.find((x) => x.kind === 'root' && x.firstUser && /^[\x20-\x7e]{8,}$/.test(x.firstUser) && !x.name)!;
    expect(big, 'a root session titled by its first message').toBeTruthy();
    // 16 GiB of hole (no disk cost) then one more entry: explain streams every byte of it, for seconds.
    const size = statSync(big.file).size;
    const fd = openSync(big.file, 'r+');
    writeSync(fd, `\n${JSON.stringify({ type: 'custom', id: 'tail0001', parentId: null, timestamp: new Date().toISOString() })}\n`, size + 16 * 1024 ** 3);
    closeSync(fd);
    s = openTmux({ args: ['--agent', 'pi'], env: { ...t.env, TMPDIR: t.root }, cols: 80, rows: 24, term: 'tmux-256color' });
    await s.waitFor(/Agent \[pi/, 60_000);
    s.press('2');
    await s.waitForLine(/^\[ \] {3}/, 60_000);
    await s.waitSettled(120_000);
    const title = new RegExp(`^${big.firstUser!.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    const on = (): boolean => s.lines().some((l) => title.test(l.trim()));
    // The tree opens on the project; the session titled by its first message is the first row under it.
    s.press('j');
    await s.waitForLine(title, 30_000);
    expect(on(), s.text()).toBe(true);
    s.press('b');
    await s.waitFor('Why this size', 30_000);
    await s.waitFor('Esc cancels: this writes nothing.', 30_000);
    s.press(KEYS.esc);
    await s.waitFor('Explain cancelled; nothing was changed.', 30_000);
    expect(s.text()).not.toContain('Esc cancels: this writes nothing.');
    expect(s.text()).not.toMatch(/Why this session is/);
    // The list has the keys again at once (the worker still reads in the background; its answer is dropped):
    // the cursor moves up to the project and its details follow.
    s.press('k');
    await s.waitForLine(/^Project$/, 30_000);
    expect(on()).toBe(false);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(240_000),
);
