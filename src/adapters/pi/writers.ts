// A running pi writes its session files with append-open-close and holds no
// lock, so the only evidence is the process itself. pi sets
// process.title = "pi", which rewrites comm and cmdline.

import type { HostContext } from '../../engine/adapter.js';
import type { Writer } from '../../engine/model.js';
import { listProcesses, nameIs, processName, type ProcessInfo } from '../../engine/processes.js';

export const PI_RUNNING_REASON = 'pi is running; quit it before deleting local session data.';

export function isPiProcess(p: ProcessInfo): boolean {
  if (nameIs(p.comm, ['pi']) || nameIs(p.exe, ['pi']) || nameIs(p.argv[0], ['pi'])) return true;
  // An interpreter started on the package directly (before it renames itself).
  if (nameIs(p.argv[0], ['node', 'bun']) || nameIs(p.exe, ['node', 'bun'])) {
    return p.argv.slice(1).some((a) => a.includes('pi-coding-agent'));
  }
  return false;
}

export async function findPiWriters(ctx: HostContext): Promise<Writer[]> {
  if (ctx.platform !== 'linux') return [];
  const procs = await listProcesses(ctx.procRoot);
  return procs.filter(isPiProcess).map((p) => ({ pid: p.pid, name: processName(p) }));
}
