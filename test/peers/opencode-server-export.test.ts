// The backup's OpenCode exports through one private `opencode serve` (the
// pinned 1.18.33), several requests in flight: every file is what `opencode
// export <id>` prints for that session (the same JSON), written 0600 and read
// back before it is reported; the OpenCode program is started once (`serve`),
// never once per session; nothing in the store changes; a session the server
// cannot export fails the whole call and leaves no export behind.

import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { opencodeEnv as routeEnv } from '../../src/adapters/opencode/official-cli.js';
import { exportThroughServer } from '../../src/adapters/opencode/server-export.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { buildStore, deepRoot, installation, makeTemplate, OPENCODE_BIN, opencodeEnv, sessionRows, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());
afterEach(() => t?.cleanup());

const ctx = (): HostContext => ({ ...t.ctx, env: opencodeEnv(t) });

/** JSON with every object's keys sorted: the server and the CLI order an object's keys differently. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

/** An `opencode` that logs each of its command lines to `log`, then is the real one. */
function loggingOpencode(): { exe: string; runs: () => string[] } {
  const exe = join(t.root, 'opencode');
  const log = join(t.root, 'opencode-runs.log');
  writeFileSync(exe, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${OPENCODE_BIN}' "$@"\n`);
  chmodSync(exe, 0o755);
  return {
    exe,
    runs: () => {
      try {
        return readFileSync(log, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

describe('OpenCode exports through one server', () => {
  it(
    'writes for each session what `opencode export` prints, starting OpenCode once, and changes nothing in the store',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { messagesPerSession: 40, partBytes: 300 });
      const roots = m.sessions.filter((s) => s.kind === 'root' && m.descendants.get(s.id)!.length >= 3).slice(0, 2);
      const order = roots.flatMap((r) => [r.id, ...m.descendants.get(r.id)!]);
      const before = sessionRows(t);
      const storeBefore = hashTree(t.env.XDG_DATA_HOME!, [join(t.env.XDG_DATA_HOME!, 'opencode', 'log')]);
      const oc = loggingOpencode();
      const stage = join(t.root, 'stage');
      const seen: [number, number][] = [];
      const inst = { ...installation(t), executable: oc.exe };
      const { exports } = await opencodeAdapter.sessionRoute!.exportSessions!(inst, ctx(), [roots[0]!.id, roots[1]!.id], stage, {
        parallel: 3,
        onProgress: (done, total) => seen.push([done, total]),
      });
      // One program start: the server. Never an `export` process per session.
      expect(oc.runs().map((r) => r.split(' ').slice(0, 2).join(' '))).toEqual(['--pure serve']);
      expect(exports.map((e) => e.id)).toEqual(order);
      expect(seen[0]).toEqual([0, order.length]);
      expect(seen[seen.length - 1]).toEqual([order.length, order.length]);
      expect(seen.length).toBe(order.length + 1);
      // The store is as it was: rows, and every byte of the data dir but OpenCode's own log and the database's WAL files.
      expect(sessionRows(t)).toEqual(before);
      const changed = treeDiff(storeBefore, hashTree(t.env.XDG_DATA_HOME!, [join(t.env.XDG_DATA_HOME!, 'opencode', 'log')]));
      expect(changed.filter((d) => !/opencode\.db(-wal|-shm)?$/.test(d))).toEqual([]);

      const env = routeEnv(installation(t), ctx(), t.env.OPENCODE_DB!);
      for (const e of exports) {
        expect(statSync(e.file).mode & 0o777).toBe(0o600);
        const mine = JSON.parse(readFileSync(e.file, 'utf8')) as { messages: unknown[] };
        expect(mine.messages).toHaveLength(before.get(e.id)!.messages as number);
        const cli = spawnSync(OPENCODE_BIN, ['--pure', 'export', e.id], { cwd: '/', env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: budget(120_000) });
        expect(cli.status, cli.stderr).toBe(0);
        expect(canonical(mine)).toEqual(canonical(JSON.parse(cli.stdout)));
      }
    },
    budget(900_000),
  );

  it(
    'a session the server cannot export fails the call: the error names it, no later export starts, and the route leaves no file',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { messagesPerSession: 2 });
      const root = deepRoot(m);
      const env = routeEnv(installation(t), ctx(), t.env.OPENCODE_DB!);
      const missing = 'ses_0000000000000missing000000';
      const stage = join(t.root, 'direct');
      spawnSync('mkdir', ['-m', '700', stage]);
      const written: string[] = [];
      const checked: string[] = [];
      await expect(
        exportThroughServer({
          exe: OPENCODE_BIN,
          env,
          stagingDir: stage,
          order: [root.scope[0]!, missing, ...root.scope.slice(1)],
          parallel: 1,
          maxBytes: 1 << 20,
          written,
          check: (id) => checked.push(id),
        }),
      ).rejects.toThrow(new RegExp(`OpenCode export of ${missing} failed: Session not found`));
      // One in flight: the first was exported and checked, the missing one failed, and nothing after it was asked for.
      expect(checked).toEqual([root.scope[0]]);
      expect(written.map((f) => f.slice(stage.length + 1))).toEqual([`${root.scope[0]}.json`]);

      // Through the route, a scope the server refuses (its row vanishes after the plan was checked) leaves the staging dir empty.
      const before = sessionRows(t);
      const routeStage = join(t.root, 'stage');
      const oc = loggingOpencode();
      // The wrapper deletes the grandchild's row as the server starts, after the route's checks.
      const last = root.scope[root.scope.length - 1]!;
      const sqlite = join(t.root, 'drop.cjs');
      writeFileSync(
        sqlite,
        `const D=require(${JSON.stringify(join(process.cwd(), 'node_modules', 'better-sqlite3'))});const d=new D(${JSON.stringify(t.env.OPENCODE_DB)});d.prepare('delete from session where id=?').run(${JSON.stringify(last)});d.close();`,
      );
      writeFileSync(oc.exe, `#!/bin/sh\n'${process.execPath}' '${sqlite}'\nexec '${OPENCODE_BIN}' "$@"\n`);
      await expect(
        opencodeAdapter.sessionRoute!.exportSessions!({ ...installation(t), executable: oc.exe }, ctx(), [root.id], routeStage, { parallel: 2 }),
      ).rejects.toThrow(/Session not found/);
      expect(readdirSync(routeStage)).toEqual([]);
      expect(sessionRows(t).size).toBe(before.size - 1);
    },
    budget(900_000),
  );
});
