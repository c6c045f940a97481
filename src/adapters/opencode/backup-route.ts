// SessionRoute.exportSessions / importSessions for OpenCode, offline only
// (every OpenCode writer must have exited). Exports are what `opencode export
// <id>` prints, read from one private `opencode serve` with as many requests
// in flight as there are cores (server-export.ts); import is the documented
// `opencode import <file>`. An export copies one session, so a root is
// exported together with its whole subtree, parents first. Import re-homes
// a session to the project of the directory it runs in, so each one runs from
// the session's recorded directory.

import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import type { HostContext, SessionExportEntry, SessionRoute } from '../../engine/core/adapter.js';
import { describeWriters, type Installation } from '../../engine/core/model.js';
import { closeQuietly } from './db-open.js';
import { NO_EXECUTABLE } from './delete-route.js';
import { descendantsOf, minimalRoots } from './lineage.js';
import { opencodeEnv, plainMessage, runOpencode } from './official-cli.js';
import { exportThroughServer } from './server-export.js';
import { RouteRefused } from '../shared/official-delete.js';
import { loadStore, openForCheck, requireKnown, requireRevision, SESSION_ID, stillPresent, validateIds } from './store.js';
import { findOpencodeWriters } from './writers.js';

type ExportOpts = NonNullable<Parameters<NonNullable<SessionRoute['exportSessions']>>[4]>;
type ImportOpts = NonNullable<Parameters<NonNullable<SessionRoute['importSessions']>>[3]>;

/** An export larger than this is not parsed back for verification. */
const MAX_EXPORT_BYTES = 512 * 1024 * 1024;

async function requireOffline(ctx: HostContext, db: string, home: string, what: string): Promise<void> {
  const writers = await findOpencodeWriters(ctx, db, home);
  if (writers.length) {
    throw new RouteRefused(`Quit OpenCode before ${what} (running: ${describeWriters(writers)}).`);
  }
}

/** An existing or new directory that only this user can enter. */
function privateDir(dir: string, uid: number): void {
  if (!isAbsolute(dir)) throw new RouteRefused('The backup staging directory must be an absolute path.');
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new RouteRefused(`Cannot create the backup staging directory (${(e as NodeJS.ErrnoException).code}).`);
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new RouteRefused('The backup staging directory is not a plain directory.');
  if (uid >= 0 && st.uid !== uid) throw new RouteRefused('The backup staging directory belongs to another user.');
  if ((st.mode & 0o077) !== 0) throw new RouteRefused('The backup staging directory is readable by other users; it must be mode 0700.');
}

interface ExportJson {
  info: { id: string; directory: string; parentID?: unknown; title?: unknown; projectID?: unknown };
  messages: unknown[];
}

/** The export's JSON, checked to be the session it claims to be. */
function readExport(file: string, id: string): { json: ExportJson; bytes: number; sha256: string } {
  const st = lstatSync(file);
  if (!st.isFile()) throw new Error('not a plain file');
  if (st.size === 0) throw new Error('empty');
  if (st.size > MAX_EXPORT_BYTES) throw new Error(`larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB`);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  let buf: Buffer;
  try {
    buf = readFileSync(fd);
  } finally {
    closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new Error('not JSON');
  }
  const j = json as Partial<ExportJson> | null;
  if (!j || typeof j !== 'object' || !j.info || typeof j.info !== 'object' || !Array.isArray(j.messages)) throw new Error('not an OpenCode session export');
  if (j.info.id !== id) throw new Error(`holds session ${String(j.info.id).slice(0, 64)}, not ${id}`);
  if (typeof j.info.directory !== 'string') throw new Error('has no session directory');
  return { json: j as ExportJson, bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
}

/** The export file of `id`, read back and checked to be that session's JSON (as `opencode import` will read it). */
function verifiedEntry(id: string, file: string): SessionExportEntry {
  let checked;
  try {
    checked = readExport(file, id);
  } catch (e) {
    throw new RouteRefused(`OpenCode export of ${id} is not usable: ${(e as Error).message}.`);
  }
  const info = checked.json.info;
  return {
    id,
    file,
    directory: info.directory,
    parentId: typeof info.parentID === 'string' ? info.parentID : null,
    title: typeof info.title === 'string' ? info.title.slice(0, 2000) : '',
    bytes: checked.bytes,
    sha256: checked.sha256,
  };
}

export async function exportOpencodeSessions(
  inst: Installation,
  ctx: HostContext,
  rootIds: readonly string[],
  stagingDir: string,
  opts: ExportOpts = {},
): Promise<{ exports: SessionExportEntry[]; revision: string }> {
  const ids = validateIds(rootIds);
  const exe = inst.executable;
  if (!exe) throw new RouteRefused(NO_EXECUTABLE);
  const store = loadStore(inst, ctx);
  requireRevision(store, opts.expectedRevision);
  requireKnown(store, ids);
  await requireOffline(ctx, store.db, inst.home, 'backing up OpenCode sessions');
  privateDir(stagingDir, ctx.uid);
  const order: string[] = [];
  for (const root of minimalRoots(store.lineage, ids)) order.push(root, ...descendantsOf(store.lineage, root));
  requireKnown(store, order);
  const env = opencodeEnv(inst, ctx, store.db);
  const written: string[] = [];
  const checked = new Map<string, SessionExportEntry>();
  opts.onProgress?.(0, order.length, '');
  try {
    await exportThroughServer({
      exe,
      env,
      stagingDir,
      order,
      parallel: opts.parallel ?? availableParallelism(),
      maxBytes: MAX_EXPORT_BYTES,
      timeoutMs: opts.timeoutMs,
      written,
      onProgress: opts.onProgress,
      check: (id, file) => checked.set(id, verifiedEntry(id, file)),
    });
  } catch (e) {
    for (const f of written) rmQuiet(f);
    throw e;
  }
  const out = order.map((id) => checked.get(id)!);
  // `opencode export` itself moves the database's revision (its WAL); what a
  // following delete may expect is the store as it is now, with the same scope.
  const after = loadStore(inst, ctx);
  const again: string[] = [];
  for (const root of minimalRoots(after.lineage, ids)) again.push(root, ...descendantsOf(after.lineage, root));
  if (again.join('\n') !== order.join('\n')) {
    for (const f of written) rmQuiet(f);
    throw new RouteRefused('OpenCode sessions of this scope changed during the export; rescan and review again.');
  }
  return { exports: out, revision: after.revision };
}

function rmQuiet(f: string): void {
  try {
    unlinkSync(f);
  } catch {
    // already gone
  }
}

export async function importOpencodeSessions(
  inst: Installation,
  ctx: HostContext,
  exports: readonly SessionExportEntry[],
  opts: ImportOpts = {},
): Promise<{ imported: string[]; rehomed: { id: string; from: string; to: string }[]; durationMs: number }> {
  const started = Date.now();
  if (!Array.isArray(exports) || exports.length === 0) throw new RouteRefused('No OpenCode session export was given.');
  const exe = inst.executable;
  if (!exe) throw new RouteRefused(NO_EXECUTABLE);
  const store = loadStore(inst, ctx);
  await requireOffline(ctx, store.db, inst.home, 'restoring OpenCode sessions');

  // Preflight everything before the first import.
  const seen = new Set<string>();
  const projectOf = new Map<string, string>();
  for (const e of exports) {
    if (typeof e?.id !== 'string' || !SESSION_ID.test(e.id))
      throw new RouteRefused(`Not an OpenCode session id: ${JSON.stringify(String(e?.id).slice(0, 64))}.`);
    if (seen.has(e.id)) throw new RouteRefused(`The backup holds OpenCode session ${e.id} twice.`);
    seen.add(e.id);
    if (store.sessions.has(e.id)) throw new RouteRefused(`OpenCode session already exists: ${e.id}; it is not imported over.`);
    if (typeof e.file !== 'string' || !isAbsolute(e.file)) throw new RouteRefused(`The export of ${e.id} has no absolute file path.`);
    let checked;
    try {
      checked = readExport(e.file, e.id);
    } catch (err) {
      throw new RouteRefused(`The export of ${e.id} is not usable: ${(err as Error).message}.`);
    }
    if (typeof checked.json.info.projectID === 'string') projectOf.set(e.id, checked.json.info.projectID);
    if (checked.json.info.directory !== e.directory) throw new RouteRefused(`The export of ${e.id} names another working directory than its backup record.`);
    if (!isAbsolute(e.directory) || !isDir(e.directory)) {
      throw new RouteRefused(`The original working directory of OpenCode session ${e.id} is unavailable (${e.directory}); recreate it to restore the session.`);
    }
  }

  const env = opencodeEnv(inst, ctx, store.db);
  const imported: string[] = [];
  const rehomed: { id: string; from: string; to: string }[] = [];
  const check = openForCheck(store.db);
  try {
    for (const e of exports) {
      const r = await runOpencode(exe, ['import', e.file], { cwd: e.directory, env, timeoutMs: opts.timeoutMs });
      const present = stillPresent(check, [e.id]).has(e.id);
      if (r.code === 0 && !r.timedOut && present) {
        imported.push(e.id);
        const to = (check.prepare('SELECT project_id AS p FROM session WHERE id = ?').get(e.id) as { p: unknown } | undefined)?.p;
        const from = projectOf.get(e.id);
        if (from !== undefined && typeof to === 'string' && to !== from) rehomed.push({ id: e.id, from, to });
        continue;
      }
      if (present) imported.push(e.id);
      const why = r.timedOut
        ? 'did not finish in time'
        : r.code !== 0
          ? `failed: ${plainMessage(r.stderr) || `exit ${r.code ?? r.signal}`}`
          : 'reported success but the session is not in the database';
      const undo = await compensate(exe, env, imported, opts.timeoutMs, check);
      throw new RouteRefused(`OpenCode import of ${e.id} ${why}. ${undo}`);
    }
  } finally {
    closeQuietly(check);
  }
  return { imported, rehomed, durationMs: Date.now() - started };
}

/** Deletes, newest first, the sessions this import created — through the same official CLI. */
async function compensate(
  exe: string,
  env: Record<string, string>,
  imported: string[],
  timeoutMs: number | undefined,
  check: ReturnType<typeof openForCheck>,
): Promise<string> {
  if (!imported.length) return 'Nothing had been imported.';
  const left: string[] = [];
  for (const id of [...imported].reverse()) {
    if (!stillPresent(check, [id]).has(id)) continue; // removed with its parent already
    await runOpencode(exe, ['session', 'delete', id], { cwd: '/', env, timeoutMs });
    if (stillPresent(check, [id]).has(id)) left.push(id);
  }
  return left.length
    ? `Undoing the partial restore failed for ${left.join(', ')}; delete them in OpenCode.`
    : `The ${imported.length} session(s) imported before it were deleted again.`;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
