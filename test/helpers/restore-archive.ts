// Small real archives for in-process restore tests: a temp tree per root,
// walked by collectEntries and written by writeArchive, as a backup does.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collectEntries, writeArchive } from '../../src/backup/archive.js';
import type { ManifestSkipped } from '../../src/backup/manifest.js';

export type Files = Record<string, string>;

export function writeTree(dir: string, files: Files, emptyDirs: string[] = []): void {
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body, { mode: 0o600 });
  }
  for (const d of emptyDirs) mkdirSync(join(dir, d), { recursive: true });
}

export interface RootTree {
  label: string;
  files?: Files;
  emptyDirs?: string[];
  /** The planned path under the root (default `s`). */
  top?: string;
  /** Runs on the written tree before it is walked (modes, times). */
  shape?: (dir: string) => void;
}

/** Writes each root's tree under `work` and an archive of them (`<work>/<name>.cxb`, the catalog id `id`). */
export async function archiveOfRoots(
  work: string,
  name: string,
  recipient: string,
  trees: RootTree[],
  o: { id: string; skipped?: ManifestSkipped[] },
): Promise<string> {
  const paths: string[] = [];
  const roots: { label: string; dir: string }[] = [];
  trees.forEach((tr, i) => {
    const dir = join(work, `${name}-src${i}`);
    writeTree(dir, tr.files ?? {}, tr.emptyDirs);
    tr.shape?.(dir);
    roots.push({ label: tr.label, dir });
    if (Object.keys(tr.files ?? {}).length || tr.emptyDirs?.length) paths.push(join(dir, tr.top ?? 's'));
  });
  const c = await collectEntries(paths, roots);
  const archivePath = join(work, `${name}.cxb`);
  await writeArchive({
    archivePath,
    recipient,
    agent: 'pi',
    operationId: 'op',
    id: o.id,
    itemCount: 1,
    retentionDays: 1,
    files: c.files,
    emptyDirs: c.emptyDirs,
    skipped: [...c.skipped, ...(o.skipped ?? [])],
    dirs: c.dirs,
  });
  return archivePath;
}
