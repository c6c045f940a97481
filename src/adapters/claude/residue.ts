// What Claude Code keeps of a session, probed after a cleanup: the
// transcript `projects/<bucket>/<id>.jsonl` (in any project folder: an older
// copy of the same session survives a move of its project), the session
// folder beside it with its sidecars and `archived.json`, the per-session
// folders (`file-history/<id>`, `tasks/<id>`, …), the legacy todo lists
// `todos/<id>-agent-*.json`, and `<tmp>/claude-<uid>/<project>/<id>/` (the
// SDK's `listSessions` reads the transcripts, which the engine's rescan
// lists). Listings and lstat only; a link is named, never followed.

import { join } from 'node:path';
import type { HostContext, ResidueTarget } from '../../engine/core/adapter.js';
import type { Installation, ResidueSurface } from '../../engine/core/model.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { PER_SESSION_ROOTS } from './scan.js';
import { claudeTempRootPaths } from './temp-roots.js';

/** Project (or temp project) folders looked at, at most. */
const MAX_FOLDERS = 20_000;

export async function claudeResidue(inst: Installation, ctx: HostContext, targets: readonly ResidueTarget[]): Promise<Map<string, ResidueSurface[]>> {
  const byKey = new Map<string, ResidueSurface[]>(targets.map((x) => [x.id.toLowerCase(), []]));
  const add = (id: string, s: ResidueSurface): void => void byKey.get(id.toLowerCase())?.push(s);
  const planned = new Set(targets.flatMap((x) => x.paths));
  const projects = join(inst.home, 'projects');
  for (const bucket of listDirSorted(projects).slice(0, MAX_FOLDERS)) {
    if (!bucket.isDirectory()) continue;
    const dir = join(projects, bucket.name);
    for (const e of listDirSorted(dir)) {
      const id = e.name.endsWith('.jsonl') ? e.name.slice(0, -6) : e.name;
      if (!byKey.has(id.toLowerCase())) continue;
      const path = join(dir, e.name);
      if (e.name.endsWith('.jsonl')) add(id, { surface: planned.has(path) ? 'transcript' : 'otherProjectCopy', path, why: 'noRoute' });
      else if (lstatSyncOrNull(join(path, 'archived.json'))) add(id, { surface: 'archivedMark', path: join(path, 'archived.json'), why: 'noRoute' });
      else add(id, { surface: 'sidecar', path, why: 'noRoute' });
    }
  }
  for (const root of PER_SESSION_ROOTS)
    for (const e of listDirSorted(join(inst.home, root))) {
      const id = root === 'debug' && e.name.endsWith('.txt') ? e.name.slice(0, -4) : e.name;
      if (byKey.has(id.toLowerCase()))
        add(id, { surface: root === 'file-history' ? 'fileHistory' : root, path: join(inst.home, root, e.name), why: 'noRoute' });
    }
  for (const e of listDirSorted(join(inst.home, 'todos'))) {
    const m = /^([0-9a-f-]{36})-agent-.*\.json$/i.exec(e.name);
    if (m && byKey.has(m[1]!.toLowerCase())) add(m[1]!, { surface: 'todos', path: join(inst.home, 'todos', e.name), why: 'noRoute' });
  }
  for (const root of claudeTempRootPaths(ctx)) {
    const st = lstatSyncOrNull(root);
    if (!st?.isDirectory() || st.uid !== ctx.uid) continue;
    for (const p of listDirSorted(root).slice(0, MAX_FOLDERS)) {
      if (!p.isDirectory()) continue;
      for (const e of listDirSorted(join(root, p.name)))
        if (byKey.has(e.name.toLowerCase())) add(e.name, { surface: 'tempRoot', path: join(root, p.name, e.name), why: 'noRoute' });
    }
  }
  return new Map(targets.map((x) => [x.id, byKey.get(x.id.toLowerCase())!]));
}
