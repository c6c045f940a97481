// OpenCode leftovers nothing reads any more (#25.6), in a store the real
// opencode migrated: tool output older than OpenCode's own 7-day retention
// and the session_diff files of deleted sessions are safe items; fresh tool
// output, the diffs of live sessions, a held file and the rest of storage/
// stay read-only. A cleanup of both items removes exactly them (byte for
// byte, nothing else), and nothing is called orphaned when the database
// cannot be read.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { SESSION_DIFF_ITEM_ID, TOOL_OUTPUT_ITEM_ID } from '../../src/adapters/opencode/leftovers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { buildStore, dataDir, installation, makeTemplate, type Template } from '../helpers/opencode.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
let holder: ChildProcess | null = null;
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = null;
  t?.cleanup();
});

const DAY = 24 * 3600 * 1000;
function put(p: string, bytes: number, daysOld: number): string {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, Buffer.alloc(bytes, 3));
  const when = (Date.now() - daysOld * DAY) / 1000;
  utimesSync(p, when, when);
  return p;
}

function store() {
  t = makeTempEnv();
  const m = buildStore(t, template, { messagesPerSession: 1 });
  const home = dataDir(t);
  const tools = join(home, 'tool-output');
  const diffs = join(home, 'storage', 'session_diff');
  const old = [put(join(tools, 'tool_0aa1'), 9000, 8), put(join(tools, 'tool_0aa2'), 20_000, 30)];
  const fresh = put(join(tools, 'tool_0aa3'), 5000, 2);
  const stranger = put(join(tools, 'notes.txt'), 100, 40);
  const live = put(join(diffs, `${m.sessions[0]!.id}.json`), 700, 50);
  const orphans = [put(join(diffs, 'ses_gone1.json'), 3000, 1), put(join(diffs, 'ses_gone2.json'), 1200, 0)];
  const other = put(join(home, 'storage', 'migration'), 10, 60);
  return { m, home, old, fresh, stranger, live, orphans, other };
}

const scan = (): Promise<Inventory> => opencodeAdapter.scan(installation(t), t.ctx, () => undefined);

describe('OpenCode leftovers', () => {
  it('offers tool output past its retention and the diffs of deleted sessions as safe items; the rest stays read-only', async () => {
    const s = store();
    // A file a process holds open is never offered, however old.
    const held = put(join(s.home, 'tool-output', 'tool_0aa4'), 100, 20);
    const fd = openSync(held, 'r');
    holder = spawn('sleep', ['60'], { stdio: ['ignore', fd, 'ignore'] });
    closeSync(fd);
    // The real process, mirrored into the test's /proc with its descriptor.
    fakeProcess(t.procRoot, holder.pid!, 'sleep', ['sleep', '60']);
    mkdirSync(join(t.procRoot, String(holder.pid), 'fd'));
    symlinkSync(`/proc/${holder.pid}/fd/1`, join(t.procRoot, String(holder.pid), 'fd', '1'));
    const inv = await scan();
    const tools = inv.items.find((i) => i.id === TOOL_OUTPUT_ITEM_ID)!;
    expect(tools).toMatchObject({ category: 'temporary', risk: 'safe', selectable: true });
    expect([...tools.paths].sort()).toEqual([...s.old].sort());
    const diffs = inv.items.find((i) => i.id === SESSION_DIFF_ITEM_ID)!;
    expect(diffs).toMatchObject({ category: 'temporary', risk: 'safe', selectable: true });
    expect([...diffs.paths].sort()).toEqual([...s.orphans].sort());
    // What is not offered is still listed, read-only: and it is protected from every removal.
    const protectedPaths = inv.items.filter((i) => i.category === 'protected').flatMap((i) => i.paths);
    for (const p of [s.fresh, s.stranger, s.live, s.other, held]) expect(protectedPaths, p).toContain(p);
    for (const p of [...s.old, ...s.orphans])
      expect(
        protectedPaths.some((q) => p === q || p.startsWith(`${q}/`)),
        p,
      ).toBe(false);
  }, 120_000);

  it('a cleanup of both removes exactly them: everything else byte for byte unchanged', async () => {
    const s = store();
    const engine = new Engine(ADAPTERS, t.ctx);
    const summary = await engine.scan('opencode');
    const shm = `${t.env.OPENCODE_DB!}-shm`;
    const before = hashTree(s.home, [shm]);
    const plan = await engine.plan(summary.snapshotId, [TOOL_OUTPUT_ITEM_ID, SESSION_DIFF_ITEM_ID]);
    expect(plan.blockers).toEqual([]);
    const r = await engine.execute(plan.id);
    expect(r.status, r.message).toBe('complete');
    const gone = [...s.old, ...s.orphans].map((p) => `removed ${p.slice(s.home.length + 1)}`).sort();
    expect(treeDiff(before, hashTree(s.home, [shm])).sort()).toEqual(gone);
    const again = await scan();
    expect(again.items.some((i) => i.id === TOOL_OUTPUT_ITEM_ID || i.id === SESSION_DIFF_ITEM_ID)).toBe(false);
  }, 120_000);

  it('a database that cannot be read calls no diff orphaned', async () => {
    const s = store();
    writeFileSync(t.env.OPENCODE_DB!, Buffer.alloc(8192, 0x41));
    const inv = await scan();
    expect(inv.sessionsUnread).toBeTruthy();
    expect(inv.items.some((i) => i.id === SESSION_DIFF_ITEM_ID)).toBe(false);
    const storage = inv.items.find((i) => i.id === 'protected:opencode:storage')!;
    expect(storage.paths).toEqual([join(s.home, 'storage')]);
  }, 120_000);
});
