// cleanerx's own children and their descendants are never writers, for
// every agent: a fake /proc tree our pid → child → grandchild where each is
// named like an agent, with no probe marker and an unreadable environment
// (the way an exited-but-unreaped probe looks). The same names under another
// parent are writers, so the test can fail. Zombies write nothing either.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findClaudeWriters } from '../../src/adapters/claude/writers.js';
import { findCodexWriters } from '../../src/adapters/codex/writers.js';
import { findOpencodeWriters } from '../../src/adapters/opencode/writers.js';
import { scanPiWriters } from '../../src/adapters/pi/writers.js';
import { listProcesses, ownDescendants, parseStat } from '../../src/engine/host/processes.js';
import { ownTreeRoots, spawnTracked } from '../../src/engine/host/own-children.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

function proc(pid: number, comm: string, argv: string[], ppid: number, state = 'S'): void {
  fakeProcess(t.procRoot, pid, comm, argv);
  // A comm with spaces and parentheses, as any process may name itself.
  writeFileSync(
    join(t.procRoot, String(pid), 'stat'),
    `${pid} (${comm} (x) y) ${state} ${ppid} ${pid} ${pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n`,
  );
}

const AGENTS = [
  ['claude', ['claude']],
  ['codex', ['codex']],
  ['opencode', ['/x/node_modules/opencode-linux-x64/bin/opencode', 'serve', '--port', '4096']],
  ['pi', ['pi']],
] as const;

/** Each agent's writers as pids. */
async function writers(): Promise<Record<string, number[]>> {
  return {
    claude: (await findClaudeWriters(t.ctx, t.env.CLAUDE_CONFIG_DIR!, [])).writers.map((w) => w.pid),
    codex: (await findCodexWriters(t.ctx, t.env.CODEX_HOME!)).writers.map((w) => w.pid),
    opencode: (await findOpencodeWriters(t.ctx, t.env.OPENCODE_DB!, dirname(t.env.OPENCODE_DB!))).map((w) => w.pid),
    pi: (await scanPiWriters(t.ctx, t.env.PI_CODING_AGENT_DIR!)).writers.map((w) => w.pid),
  };
}

describe("cleanerx's own process tree", () => {
  it('our child and grandchild named opencode/codex/claude/pi are never writers; the same under another parent are', async () => {
    t = makeTempEnv();
    // A launcher child of ours (e.g. `npm exec`-style node), its children the agents, and their children again.
    proc(100, 'node', ['node', '/x/launcher.js'], process.pid);
    proc(500, 'bash', ['bash'], 1);
    AGENTS.forEach(([comm, argv], i) => {
      proc(200 + i, comm, [...argv], 100);
      proc(300 + i, comm, [...argv], 200 + i);
      // Someone else's: parent 1, and a grandchild of a foreign shell.
      proc(400 + i, comm, [...argv], 1);
      proc(600 + i, comm, [...argv], 500);
    });
    expect(await writers()).toEqual({ claude: [400, 600], codex: [401, 601], opencode: [402, 602], pi: [403, 603] });
  });

  it('a zombie (exited, not yet reaped) is no writer, wherever it hangs', async () => {
    t = makeTempEnv();
    AGENTS.forEach(([comm, argv], i) => {
      proc(700 + i, comm, [...argv], 1, 'Z');
      proc(710 + i, comm, [...argv], 1, 'X');
    });
    expect(await writers()).toEqual({ claude: [], codex: [], opencode: [], pi: [] });
  });

  it('a hostile tree (a cycle, a self-parent, a garbled stat) neither hangs nor hides a foreign writer', async () => {
    t = makeTempEnv();
    proc(800, 'opencode', ['opencode'], 801);
    proc(801, 'opencode', ['opencode'], 800);
    proc(802, 'opencode', ['opencode'], 802);
    fakeProcess(t.procRoot, 803, 'opencode', ['opencode']);
    writeFileSync(join(t.procRoot, '803', 'stat'), 'garbage without parentheses');
    expect((await listProcesses(t.procRoot)).map((p) => p.pid)).toEqual([800, 801, 802, 803]);
    expect((await findOpencodeWriters(t.ctx, null, dirname(t.env.OPENCODE_DB!))).map((w) => w.pid)).toEqual([800, 801, 802, 803]);
  });

  it('parseStat and ownDescendants', () => {
    expect(parseStat('12 (a) b) c) R 7 1 1')).toEqual({ state: 'R', ppid: 7 });
    expect(parseStat('no paren')).toBeNull();
    const p = (pid: number, ppid: number | null) => ({ pid, ppid, comm: '', argv: [], exe: null });
    expect([...ownDescendants([p(2, 1), p(3, 2), p(4, 3), p(5, 9), p(6, 6), p(1, 4)], 1)].sort()).toEqual([2, 3, 4]);
  });

  it('as PID 1 (a container entrypoint): the children cleanerx started are its own, an orphan the container reparented to it is not', async () => {
    t = makeTempEnv();
    // A real child started through the tracked spawn: its pid is ours while it lives.
    const child = spawnTracked('/bin/sleep', ['30'], { stdio: 'ignore' });
    try {
      const mine = child.pid!;
      expect(ownTreeRoots(1)).toContain(mine);
      proc(mine, 'codex', ['codex', 'app-server'], 1);
      proc(mine + 100000, 'codex', ['codex', 'app-server', '--helper'], mine);
      // A user's Codex whose launcher exited: reparented to PID 1, yet no child of ours.
      proc(4242, 'codex', ['codex'], 1);
      const listed = (await listProcesses(t.procRoot, 1)).map((p) => p.pid);
      expect(listed).toEqual([4242]);
      // As any other pid, everything below it is its own, as before.
      expect(ownTreeRoots(777)).toEqual([777]);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    expect(ownTreeRoots(1)).not.toContain(child.pid);
  });
});
