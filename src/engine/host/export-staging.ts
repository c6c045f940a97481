// Where a backup stages an agent's own session exports (OpenCode's
// `opencode export`): plaintext session content, so it must never outlive
// its operation. Each run stages in `<data>/export-staging/<pid>-<uuid>/`
// (0700); the run removes it on success and failure, and a dir whose pid no
// longer runs (a killed run) is removed by the next recovery list, recovery
// action or cleanup.

import { randomUUID } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const exportStagingParent = (dataDir: string): string => join(dataDir, 'export-staging');

/** A fresh staging dir name for this run (not created). */
export function newExportStaging(dataDir: string): string {
  return join(exportStagingParent(dataDir), `${process.pid}-${procStart(process.pid) ?? '0'}-${randomUUID()}`);
}

/** Field 22 of /proc/<pid>/stat: tells a reused pid from the run that named the dir. */
function procStart(pid: number): string | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return s.slice(s.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Removes every staging dir whose run is gone (any name that is not `<live pid>-<its start time>-…`). Returns what was removed. */
export async function sweepExportStaging(dataDir: string): Promise<string[]> {
  const parent = exportStagingParent(dataDir);
  const names = await fsp.readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const n of names) {
    const m = /^(\d+)-(\d+)-/.exec(n);
    if (m && procStart(Number(m[1])) === m[2]) continue;
    await fsp.rm(join(parent, n), { recursive: true, force: true });
    removed.push(n);
  }
  return removed;
}
