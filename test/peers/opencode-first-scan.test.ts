// Peer test, no false "running": a first scan (an empty version cache, so
// detection really runs `opencode --version` beside it, as the TUI does) on
// a real OpenCode database, with the real opencode and the real /proc. Also
// under this process: a finished `opencode --version` nobody has reaped yet
// (a zombie: its environment, and so its probe marker, can no longer be
// read) and a live `opencode serve` without the marker — both descendants of
// cleanerx, neither a writer. The counterpart: a real `opencode serve` on
// loopback that the user started (not our descendant) is seen, and the
// store is blocked or reached through that verified server.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RUNNING_REASON } from '../../src/adapters/opencode/items.js';
import { freeLoopbackPort } from '../../src/adapters/opencode/private-server.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { VERSION_PROBE_ENV } from '../../src/engine/host/detect.js';
import { Engine } from '../../src/engine/api/engine.js';
import { spawnForeign } from '../helpers/foreign-process.js';
import { buildStore, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
const groups: ChildProcess[] = [];
afterEach(async () => {
  for (const c of groups.splice(0)) {
    const exited = c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r));
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  t?.cleanup();
});

/** The real /proc, the real opencode first on PATH, the temp env and an empty cleanerx state dir. */
function ctx(): HostContext {
  return { ...t.ctx, procRoot: '/proc', env: { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin` } };
}

/**
 * ctx() with the real opencode behind a launcher that has no npm manifest
 * beside it (as the standalone install has none), so detection really runs
 * `opencode --version`: the pinned package's manifest would answer without it.
 */
function probingCtx(): { ctx: HostContext; exe: string } {
  const exe = join(t.root, 'probe-bin', 'opencode');
  mkdirSync(dirname(exe), { recursive: true });
  writeFileSync(exe, `#!/bin/sh\nexec '${OPENCODE_BIN}' "$@"\n`);
  chmodSync(exe, 0o755);
  const c = ctx();
  return { ctx: { ...c, env: { ...c.env, PATH: `${dirname(exe)}:/usr/bin:/bin` } }, exe };
}

function stat(pid: number): { state: string; ppid: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0]!, ppid: Number(f[1]) };
  } catch {
    return null;
  }
}

/** The opencode processes whose parent is `ppid`. */
function opencodeChildren(ppid: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => stat(pid)?.ppid === ppid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'opencode');
}

async function until<T>(what: string, f: () => T | null | undefined | false, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `sh -c 'opencode <args> & exec sleep 120'`: our child becomes `sleep`, the
 * parent of an opencode it never reaps (a zombie once it exits).
 */
function underUs(args: string[], env: Readonly<Record<string, string | undefined>>): ChildProcess {
  const c = spawn('/bin/sh', ['-c', '"$0" "$@" </dev/null >/dev/null 2>&1 & exec sleep 120', OPENCODE_BIN, ...args], { env, detached: true, stdio: 'ignore' });
  groups.push(c);
  return c;
}

describe('first scan with an empty version cache, on the real /proc', () => {
  it(
    "cleanerx's own opencode processes (the probe, a zombie, a served child) are no writers: nothing is blocked as running",
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template);
      const { ctx: c, exe } = probingCtx();
      const state = t.env.CLEANERX_STATE_DIR ?? join(t.env.XDG_STATE_HOME!, 'cleanerx');
      expect(existsSync(join(state, 'versions.json'))).toBe(false);

      // A finished `opencode --version` under us that nobody reaped; its marker is unreadable now.
      const zParent = underUs(['--version'], { ...c.env, [VERSION_PROBE_ENV]: '1' } as Record<string, string>);
      const [zombie] = await until('the unreaped opencode --version', () => {
        const kids = opencodeChildren(zParent.pid!);
        return kids.length === 1 && stat(kids[0]!)?.state === 'Z' && kids;
      });
      // A live opencode of ours without the marker (as the private server or an official CLI call are).
      const port = await freeLoopbackPort();
      const sParent = underUs(['serve', '--hostname', '127.0.0.1', '--port', String(port)], c.env);
      const [served] = await until('our opencode serve', () => {
        const kids = opencodeChildren(sParent.pid!);
        return kids.length === 1 && stat(kids[0]!)?.state !== 'Z' && kids;
      });
      const healthy = { ok: false };
      void (async () => {
        while (!healthy.ok && sParent.exitCode === null) {
          healthy.ok = await fetch(`http://127.0.0.1:${port}/global/health`, { signal: AbortSignal.timeout(2000) }).then(
            (r) => r.status === 200,
            () => false,
          );
          if (!healthy.ok) await new Promise((r) => setTimeout(r, 200));
        }
      })();

      await until('our opencode serve to answer', () => healthy.ok, 90_000);
      const engine = new Engine(ADAPTERS, c);
      try {
        // As the TUI does: the scan starts, detection with versions runs beside it.
        const [summary, installs] = await Promise.all([engine.scan('opencode'), engine.detect({ versions: true, agents: ['opencode'] })]);
        // (the probe's own 3 s limit may run out on a loaded machine: then no version, and nothing cached)
        expect(installs[0]!).toMatchObject({ state: 'installed', executable: exe });
        if (installs[0]!.version !== null) {
          expect(installs[0]!.version).toBe('1.18.33');
          expect(existsSync(join(state, 'versions.json'))).toBe(true);
        }
        // Still there during the scan: the zombie and our served child.
        expect(stat(zombie!)?.state).toBe('Z');
        expect(stat(served!)).not.toBeNull();

        expect(summary.writers).toEqual([]);
        const snap = engine.snapshot(summary.snapshotId);
        expect(snap.forest.nodes.length).toBe(m.sessions.length);
        const blocked = snap.forest.nodes.map((n) => n.s.blockedReason).filter((r) => r && /running/i.test(r));
        expect(blocked).toEqual([]);
        expect(snap.item('logs:opencode')?.blockedReason).not.toBe(RUNNING_REASON);
        expect(snap.item('cache:opencode')?.blockedReason).not.toBe(RUNNING_REASON);

        // A second scan, the version now cached: the same.
        expect((await engine.scan('opencode')).writers).toEqual([]);
      } finally {
        await engine.close();
      }
    },
    budget(180_000),
  );

  it(
    'a real opencode serve the user started (not our descendant) on loopback is seen: blocked, or reached through the verified server',
    async () => {
      t = makeTempEnv();
      buildStore(t, template);
      const c = ctx();
      const port = await freeLoopbackPort();
      const { child, pid } = await spawnForeign(OPENCODE_BIN, ['serve', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: t.root, env: c.env });
      groups.push(child);
      await until('opencode serve health', () => stat(pid) !== null && stat(pid)!.ppid !== process.pid && pid);
      const end = Date.now() + 90_000;
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port}/global/health`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
        if (Date.now() > end) throw new Error('opencode serve was not ready in 90 s');
        await new Promise((r) => setTimeout(r, 200));
      }

      const engine = new Engine(ADAPTERS, c);
      try {
        const [summary] = await Promise.all([engine.scan('opencode'), engine.detect({ versions: true, agents: ['opencode'] })]);
        expect(summary.writers.map((w) => w.pid)).toEqual([pid]);
        const snap = engine.snapshot(summary.snapshotId);
        // Files need OpenCode to exit; sessions go through the verified server (status known) or are blocked.
        expect(snap.item('logs:opencode')?.blockedReason).toContain(RUNNING_REASON);
        // (selectable only when its Server API answered: an unverified running OpenCode blocks every session)
        for (const n of snap.forest.nodes) if (!n.s.selectable) expect(n.s.blockedReason).toMatch(/running|busy|cycle|descendant/i);
        expect(snap.forest.nodes.some((n) => n.s.selectable)).toBe(true);
      } finally {
        await engine.close();
      }
    },
    budget(180_000),
  );
});
