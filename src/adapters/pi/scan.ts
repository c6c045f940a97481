// Inventory of a pi agent directory: sessions/--<cwd>--/*.jsonl, the model
// catalog cache, and the protected configuration listed by name only.

import { basename, dirname, join, resolve } from 'node:path';
import type { HostContext } from '../../engine/adapter.js';
import { allocatedBytes, canonicalPath, listDirSorted, lstatOrNull, readPrefixSync } from '../../engine/fsx.js';
import { walkOwned } from '../../engine/revision.js';
import { sessionItemId, uuidv5Url } from '../../engine/ids.js';
import type { Installation, Inventory, Item, ProjectGroup, ScanProgress, ScanWarning, SessionRecord } from '../../engine/model.js';
import { cleanText } from '../../engine/text.js';
import { checkHome } from '../home.js';
import { PI_PREFIX_BYTES, piFallbackTitle, readPiSession } from './session-reader.js';
import { findPiWriters, PI_RUNNING_REASON } from './writers.js';

export const PI_PROTECTED = [
  'auth.json',
  'settings.json',
  'models.json',
  'trust.json',
  'keybindings.json',
  'AGENTS.md',
  'SYSTEM.md',
  'APPEND_SYSTEM.md',
  'prompts',
  'skills',
  'extensions',
  'themes',
  'git',
  'npm',
];

interface Found {
  file: string;
  bucket: string;
  bucketKey: string;
}

export async function scanPi(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory> {
  const home = inst.home;
  const warnings: ScanWarning[] = [];
  const inv: Inventory = { sessions: [], items: [], projects: [], warnings, writers: [] };
  const check = checkHome(home, 'The pi agent directory', warnings);
  if (!check.ok) return inv;
  const homeReadOnly = check.readOnly;

  inv.writers = await findPiWriters(ctx);
  const running = inv.writers.length > 0 ? PI_RUNNING_REASON : undefined;
  const blockAll = homeReadOnly ?? running;

  const found = await listSessionFiles(home, ctx, warnings);
  let files = 0;
  let bytes = 0;
  const progress = (): void => onProgress({ agent: 'pi', phase: 'Reading sessions', files, bytes });
  progress();

  const buf = Buffer.allocUnsafe(PI_PREFIX_BYTES);
  // Only the numbers are kept from each fstat: 100k Stats objects are garbage the scan does not need.
  const parsed: ({ f: Found; prefix: { mtimeMs: number; bytes: number }; result: ReturnType<typeof readPiSession> } | null)[] = [];
  for (const f of found) {
    // Let progress and other engine calls through now and then.
    if (files % 512 === 511) await new Promise((r) => setImmediate(r));
    try {
      const prefix = readPrefixSync(f.file, buf);
      if (ctx.uid >= 0 && prefix.stat.uid !== ctx.uid) {
        warnings.push({ path: f.file, reason: 'Skipped pi session file owned by another user.' });
        parsed.push(null);
        continue;
      }
      files++;
      bytes += prefix.stat.size;
      if (files % 500 === 0) progress();
      parsed.push({
        f,
        prefix: { mtimeMs: prefix.stat.mtimeMs, bytes: allocatedBytes(prefix.stat) },
        result: readPiSession(buf.subarray(0, prefix.length), prefix.truncated),
      });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      warnings.push({
        path: f.file,
        reason:
          code === 'ENOENT'
            ? 'Skipped pi session file that vanished during the scan.'
            : code === 'ELOOP'
              ? 'Skipped pi session file that is a symbolic link.'
              : code === 'ENOTFILE'
                ? 'Skipped pi session entry that is not a regular file.'
                : `Skipped unreadable pi session file (${code ?? 'error'}).`,
      });
      parsed.push(null);
    }
  }
  progress();

  const byId = new Map<string, SessionRecord>();
  const byPath = new Map<string, string>();
  const projects = new Map<string, ProjectGroup & { bucketLabel: string }>();
  const parentRefs: { session: SessionRecord; ref: string; base: string }[] = [];

  // When a copy repeats a session id, the file pi named for that id (`<stamp>_<id>.jsonl`)
  // is the session and the other is the duplicate, whichever bucket sorts first.
  const piNamed = (x: (typeof parsed)[number]): number =>
    x && x.result.ok && basename(x.f.file).endsWith(`_${x.result.header.id}.jsonl`) ? 0 : 1;
  const ordered = parsed.map((x, i) => ({ x, i })).sort((a, b) => piNamed(a.x) - piNamed(b.x) || a.i - b.i);

  for (const { x: p } of ordered) {
    if (!p) continue;
    const { f, prefix, result } = p;
    if (!result.ok) {
      warnings.push({
        path: f.file,
        reason: result.reason === 'empty' ? 'Skipped empty pi session file.' : 'Skipped pi session file with an unrecognized header.',
      });
      continue;
    }
    const h = result.header;
    if (byId.has(h.id)) {
      warnings.push({ path: f.file, reason: `Skipped duplicate pi session ID ${cleanText(h.id, 64)}.` });
      continue;
    }
    let project = projects.get(f.bucketKey);
    if (!project) {
      project = { id: uuidv5Url(f.bucketKey), label: '', roots: [], bucketLabel: cleanText(basename(f.bucket), 200) };
      projects.set(f.bucketKey, project);
    }
    const root = h.cwd ? cleanText(h.cwd, 4096) : '';
    if (root && !project.roots.includes(root)) project.roots.push(root);
    const title = result.name ?? result.firstUser ?? piFallbackTitle(h.id, h.timestamp);
    const s: SessionRecord = {
      id: h.id,
      itemId: sessionItemId(h.id),
      title,
      named: result.name !== null,
      cwd: h.cwd,
      projectId: project.id,
      parentId: null,
      deletionDescendantIds: [],
      state: 'current',
      source: 'cli',
      createdAt: h.timestamp,
      updatedAt: prefix.mtimeMs,
      bytes: prefix.bytes,
      paths: [f.file],
      recoverable: true,
      selectable: !blockAll,
      blockedReason: blockAll,
      metadata: { pinned: false, requiresAgentExit: true, source: 'cli' },
    };
    byId.set(h.id, s);
    byPath.set(join(f.bucketKey, basename(f.file)), h.id);
    if (h.parentSession) parentRefs.push({ session: s, ref: h.parentSession, base: h.cwd ?? f.bucket });
  }

  // parentSession is a file path (possibly relative, possibly stale): it names a
  // parent only when it resolves to a file this scan inventoried.
  const sessionsRoot = canonicalPath(join(home, 'sessions'));
  // Most references name a file in a bucket this scan listed: map those without a realpath per fork.
  const bucketKeys = new Map(found.map((f) => [f.bucket, f.bucketKey]));
  for (const { session, ref, base } of parentRefs) {
    const abs = resolve(base, ref);
    const listed = bucketKeys.get(dirname(abs));
    const canon = listed !== undefined ? join(listed, basename(abs)) : canonicalPath(abs);
    if (!canon.startsWith(sessionsRoot + '/')) continue;
    const pid = byPath.get(canon);
    if (pid && pid !== session.id) session.parentId = pid;
  }

  for (const p of projects.values()) {
    const first = p.roots[0];
    p.label = first ? (first === '/' ? 'Global' : cleanText(basename(first), 200)) : p.bucketLabel || 'pi project';
  }
  inv.sessions = [...byId.values()];
  inv.projects = [...projects.values()].map(({ id, label, roots }) => ({ id, label, roots }));
  inv.items = await otherItems(home, blockAll, warnings);
  return inv;
}

async function listSessionFiles(home: string, ctx: HostContext, warnings: ScanWarning[]): Promise<Found[]> {
  const root = join(home, 'sessions');
  const buckets = listDirSorted(root);
  const out: Found[] = [];
  for (const b of buckets) {
    const bucket = join(root, b.name);
    if (b.isSymbolicLink()) {
      warnings.push({ path: bucket, reason: 'Skipped symlinked pi session bucket.' });
      continue;
    }
    if (!b.isDirectory()) continue; // pi itself ignores files directly in sessions/
    const bucketKey = canonicalPath(bucket);
    for (const e of listDirSorted(bucket)) {
      if (!e.name.endsWith('.jsonl')) continue;
      const file = join(bucket, e.name);
      if (e.isSymbolicLink()) {
        warnings.push({ path: file, reason: 'Skipped pi session file that is a symbolic link.' });
        continue;
      }
      if (!e.isFile()) {
        warnings.push({ path: file, reason: 'Skipped pi session entry that is not a regular file.' });
        continue;
      }
      out.push({ file, bucket, bucketKey });
    }
  }
  return out;
}

async function otherItems(home: string, blockAll: string | undefined, warnings: ScanWarning[]): Promise<Item[]> {
  const items: Item[] = [];
  const cachePath = join(home, 'models-store.json');
  const cache = await lstatOrNull(cachePath);
  if (cache?.isSymbolicLink()) {
    warnings.push({ path: cachePath, reason: 'Skipped pi model catalog cache that is a symbolic link.' });
  } else if (cache?.isFile()) {
    items.push({
      id: 'cache:pi-models-store',
      category: 'cache',
      label: 'pi model catalog cache',
      subtitle: 'Regenerable remote provider catalogs cached for offline use',
      paths: [cachePath],
      bytes: allocatedBytes(cache),
      modifiedAt: cache.mtimeMs,
      risk: 'safe',
      recoverable: false,
      selectable: !blockAll,
      blockedReason: blockAll,
      metadata: { requiresAgentExit: true },
    });
  }
  for (const name of PI_PROTECTED) {
    const p = join(home, name);
    const st = await lstatOrNull(p);
    if (!st) continue;
    const link = st.isSymbolicLink();
    if (link) warnings.push({ path: p, reason: 'Protected pi entry is a symbolic link; not followed.' });
    const size = link ? 0 : st.isDirectory() ? walkOwned([p], { uid: -1, maxEntries: 200_000 }).bytes : allocatedBytes(st);
    items.push({
      id: `protected:pi:${name}`,
      category: 'protected',
      label: name,
      subtitle: 'Protected pi configuration; never opened or removed',
      paths: [p],
      bytes: size,
      modifiedAt: st.mtimeMs,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: 'Protected: credentials, configuration and rules are never cleaned.',
      metadata: { protected: true },
    });
  }
  return items;
}

