// A running Codex (TUI, `codex exec`, an app-server daemon, the desktop app)
// found in /proc: a process named codex (or an npm `@openai/codex` launcher)
// whose environment points at this store (CODEX_HOME, else HOME/.codex; an
// unreadable environment counts). What it holds is read from its open file
// descriptors: rollout files and per-thread writer locks name the threads it
// has open. Nothing is ever signalled.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { canonicalPath } from '../../engine/host/fsx.js';
import type { Writer } from '../../engine/core/model.js';
import { listProcesses, readProcessEnviron, nameIs, type ProcessInfo } from '../../engine/host/processes.js';
import { homeEnvEvidence, judgeWriter, type StoreTarget } from '../../engine/host/writer-evidence.js';
import { VERSION_PROBE_ENV } from '../../engine/host/detect.js';
import { ownCodexPids } from './child-process.js';
import { beneath, ROLLOUT_NAME, THREAD_ID } from './paths.js';

const MAX_FDS = 8192;

export interface CodexWriters {
  writers: Writer[];
  /** Thread id → pid of a Codex process that has it open. */
  held: Map<string, number>;
  /** A Codex process whose open files could not be read: it may hold anything. */
  opaque: Writer[];
}

function isCodexProcess(p: ProcessInfo): boolean {
  const names = ['codex', 'chatgpt'];
  if (nameIs(p.comm, names) || nameIs(p.exe, names) || nameIs(p.argv[0], names)) return true;
  if (/codex app/i.test(p.comm)) return true;
  const cmd = p.argv.join(' ').replace(/\\/g, '/').toLowerCase();
  return cmd.includes('@openai/codex') || cmd.includes('/codex/bin/codex') || /(^|\/)codex app-server/.test(cmd);
}

/** What ties a Codex process to the store at `home`: CODEX_HOME, else HOME/.codex, or a file of it open. */
function codexTarget(home: string): StoreTarget {
  return { roots: [home], envEvidence: (env) => homeEnvEvidence(env, home, 'CODEX_HOME', ['.codex']) };
}

/** The thread ids named by the open files of `pid` beneath the home; null when unreadable. */
async function heldThreads(procRoot: string, pid: number, home: string): Promise<string[] | null> {
  const dir = join(procRoot, String(pid), 'fd');
  let fds: string[];
  try {
    fds = (await fsp.readdir(dir)).slice(0, MAX_FDS);
  } catch {
    return null;
  }
  const homes = [...new Set([home, canonicalPath(home)])];
  const out: string[] = [];
  await Promise.all(
    fds.map(async (fd) => {
      const target = await fsp.readlink(join(dir, fd)).catch(() => null);
      if (!target || !homes.some((h) => beneath(target, h))) return;
      const name = target.slice(target.lastIndexOf('/') + 1).replace(/ \(deleted\)$/, '');
      const m = ROLLOUT_NAME.exec(name);
      if (m) out.push(m[1]!.toLowerCase());
      else if (target.includes('/thread-writer-locks/')) {
        const id = name.slice(0, 36);
        if (THREAD_ID.test(id)) out.push(id.toLowerCase());
      }
    }),
  );
  return out;
}

export async function findCodexWriters(ctx: HostContext, home: string): Promise<CodexWriters> {
  const out: CodexWriters = { writers: [], held: new Map(), opaque: [] };
  if (ctx.platform !== 'linux') return out;
  const own = ownCodexPids();
  const target = codexTarget(home);
  for (const p of await listProcesses(ctx.procRoot)) {
    if (own.has(p.pid) || !isCodexProcess(p)) continue;
    // Our own `codex --version` (the npm launcher and the binary it starts) is no writer.
    if ((await readProcessEnviron(ctx.procRoot, p.pid))?.get(VERSION_PROBE_ENV) === '1') continue;
    const v = await judgeWriter(ctx, p, target);
    if (!('writer' in v)) continue;
    const w = v.writer;
    out.writers.push(w);
    const held = await heldThreads(ctx.procRoot, p.pid, home);
    if (held === null) out.opaque.push(w);
    else for (const id of held) if (!out.held.has(id)) out.held.set(id, p.pid);
  }
  return out;
}
