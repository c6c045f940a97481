// A running Claude Code is found two ways: its process (comm/exe/argv[0]
// named claude, an old npm `node …/@anthropic-ai/claude-code`, or a native
// build run from versions/<v>) when something ties it to this config dir
// (writer-evidence.ts), and its live-process registry
// sessions/<pid>.json — trusted only when that pid is alive and its start
// time matches, since the files can outlive the process.

import { readdirSync, readFileSync, lstatSync } from 'node:fs';
import { readRegularText } from '../../engine/host/bounded-read.js';
import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import type { ScanWarning, Writer } from '../../engine/core/model.js';
import { listProcesses, nameIs, type ProcessInfo } from '../../engine/host/processes.js';
import { homeEnvEvidence, judgeWriter, type StoreTarget } from '../../engine/host/writer-evidence.js';
import { cleanText } from '../../engine/core/text.js';
import { isVersionProbe } from '../shared/version-probe.js';

export const CLAUDE_RUNNING_REASON = 'Claude Code is running; quit it before deleting local session data.';

export function isClaudeProcess(p: ProcessInfo): boolean {
  if (nameIs(p.comm, ['claude']) || nameIs(p.exe, ['claude']) || nameIs(p.argv[0], ['claude'])) return true;
  if (p.exe && /\/claude\/versions\/[^/]+$/.test(p.exe)) return true;
  if (nameIs(p.argv[0], ['node', 'bun']) || nameIs(p.exe, ['node', 'bun'])) {
    return p.argv.slice(1).some((a) => a.includes('@anthropic-ai/claude-code'));
  }
  return false;
}

interface ClaudeWriters {
  writers: Writer[];
  /** Session ids named by a live registry entry. */
  activeSessions: Map<string, number>;
}

/** What ties a Claude Code process to the config dir `home`: CLAUDE_CONFIG_DIR, else HOME/.claude, or a file of it (or of its temp roots) open. */
function claudeTarget(home: string, tempRoots: readonly string[] = []): StoreTarget {
  return { roots: [home, ...tempRoots], envEvidence: (env) => homeEnvEvidence(env, home, 'CLAUDE_CONFIG_DIR', ['.claude']) };
}

export async function findClaudeWriters(ctx: HostContext, home: string, warnings: ScanWarning[], tempRoots: readonly string[] = []): Promise<ClaudeWriters> {
  const out: ClaudeWriters = { writers: [], activeSessions: new Map() };
  if (ctx.platform !== 'linux') return out;
  const procs = await listProcesses(ctx.procRoot);
  const target = claudeTarget(home, tempRoots);
  for (const p of procs) {
    // Our own `claude --version` is no writer.
    if (!isClaudeProcess(p) || (await isVersionProbe(ctx.procRoot, p.pid))) continue;
    const v = await judgeWriter(ctx, p, target);
    if ('writer' in v) out.writers.push(v.writer);
  }
  const dir = join(home, 'sessions');
  let names: string[] = [];
  try {
    if (lstatSync(dir).isDirectory()) names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = /^(\d{1,10})\.json$/.exec(name);
    if (!m) continue;
    const file = join(dir, name);
    try {
      if (!lstatSync(file).isFile()) continue;
      // Opened without following a link or waiting on a FIFO swapped in after the lstat, and bounded.
      const rec = JSON.parse(readRegularText(file, 64 * 1024)) as { pid?: unknown; sessionId?: unknown; procStart?: unknown };
      const pid = Number(m[1]);
      if (rec.pid !== pid || typeof rec.sessionId !== 'string') continue;
      if (!processAlive(ctx.procRoot, pid, rec.procStart)) continue;
      out.activeSessions.set(rec.sessionId, pid);
      if (!out.writers.some((w) => w.pid === pid)) out.writers.push({ pid, name: 'claude', evidence: `registered in ${cleanText(file, 200)}` });
    } catch {
      warnings.push({ path: file, reason: 'Ignored an unreadable Claude Code process registry entry.' });
    }
  }
  return out;
}

/** Alive and the same process: field 22 of /proc/<pid>/stat equals the recorded start time. */
function processAlive(procRoot: string, pid: number, procStart: unknown): boolean {
  let stat: string;
  try {
    stat = readFileSync(join(procRoot, String(pid), 'stat'), 'utf8');
  } catch {
    return false;
  }
  // comm (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = rest[19];
  return procStart === undefined || String(procStart) === start;
}
