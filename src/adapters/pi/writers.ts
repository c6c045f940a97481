// A running pi writes its session files with append-open-close and holds no
// lock, so the only evidence is the process itself. pi sets
// process.title = "pi", which rewrites comm and cmdline — so a `pi --version`
// that cleanerx itself started (detection asks every agent for its version)
// looks exactly like a working pi once it has renamed itself. Those probes
// are told apart by what cmdline cannot hide: their parent is this process,
// or their environment carries the probe marker detection sets.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import type { Writer } from '../../engine/core/model.js';
import { listProcesses, nameIs, processName, type ProcessInfo } from '../../engine/host/processes.js';
import { homeEnvEvidence, judgeWriter, type StoreTarget } from '../../engine/host/writer-evidence.js';
import { cleanText } from '../../engine/core/text.js';
import { isVersionProbe } from '../shared/version-probe.js';

const MAX_NAMED = 3;
const MAX_CMDLINE_CHARS = 120;

export function isPiProcess(p: ProcessInfo): boolean {
  if (nameIs(p.comm, ['pi']) || nameIs(p.exe, ['pi']) || nameIs(p.argv[0], ['pi'])) return true;
  // An interpreter started on the package directly (before it renames itself).
  if (nameIs(p.argv[0], ['node', 'bun']) || nameIs(p.exe, ['node', 'bun'])) {
    // Or on its launcher (`node /usr/local/bin/pi`: a shebang start, before the rename).
    return nameIs(p.argv[1], ['pi']) || p.argv.slice(1).some((a) => a.includes('pi-coding-agent'));
  }
  return false;
}

interface PiWriterScan {
  writers: Writer[];
  /** The blocker text, naming the processes seen (pid and command line), when pi is running. */
  reason?: string;
}

/** The pi processes that may be writing, and the reason text that names them. */
/** What ties a pi process to the agent dir `home`: PI_CODING_AGENT_DIR, else HOME/.pi/agent, or a file of it open. */
function piTarget(home: string): StoreTarget {
  return { roots: [home], envEvidence: (env) => homeEnvEvidence(env, home, 'PI_CODING_AGENT_DIR', ['.pi', 'agent']) };
}

export async function scanPiWriters(ctx: HostContext, home: string): Promise<PiWriterScan> {
  if (ctx.platform !== 'linux') return { writers: [] };
  const procs = (await listProcesses(ctx.procRoot)).filter(isPiProcess);
  const seen: ProcessInfo[] = [];
  const writers: Writer[] = [];
  const target = piTarget(home);
  for (const p of procs) {
    if (await isOurVersionProbe(ctx.procRoot, p.pid)) continue;
    const v = await judgeWriter(ctx, p, target);
    if (!('writer' in v)) continue;
    seen.push(p);
    writers.push(v.writer);
  }
  if (!seen.length) return { writers: [] };
  return { writers, reason: piRunningReason(seen, writers) };
}

export async function findPiWriters(ctx: HostContext, home: string): Promise<Writer[]> {
  return (await scanPiWriters(ctx, home)).writers;
}

function piRunningReason(procs: ProcessInfo[], writers: readonly Writer[] = []): string {
  const named = procs.slice(0, MAX_NAMED).map((p) => {
    const evidence = writers.find((w) => w.pid === p.pid)?.evidence;
    return `pid ${p.pid}: ${cleanText(commandLine(p), MAX_CMDLINE_CHARS) || '?'}${evidence ? ` (${evidence})` : ''}`;
  });
  const more = procs.length > MAX_NAMED ? `, and ${procs.length - MAX_NAMED} more` : '';
  return `pi is running (${named.join('; ')}${more}); quit it before deleting local session data.`;
}

function commandLine(p: ProcessInfo): string {
  return p.argv.length ? p.argv.join(' ') : processName(p);
}

/** cleanerx starts pi only to ask its version: a pi whose parent is this process is that probe. */
async function isOurVersionProbe(procRoot: string, pid: number): Promise<boolean> {
  return (await parentPid(procRoot, pid)) === process.pid || isVersionProbe(procRoot, pid);
}

/** Field 4 of /proc/<pid>/stat (after the parenthesized comm, which may hold spaces and parentheses). */
async function parentPid(procRoot: string, pid: number): Promise<number | null> {
  try {
    const fh = await fsp.open(join(procRoot, String(pid), 'stat'), 'r');
    try {
      const buf = Buffer.alloc(1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const s = buf.toString('latin1', 0, bytesRead);
      const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}
