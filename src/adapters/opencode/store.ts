// The store as a route sees it right before a mutation: the same database the
// scan chose, its durable revision, and every session's parent link and
// directory — re-read read-only, never taken from an old snapshot.

import type { HostContext } from '../../engine/core/adapter.js';
import type { Installation } from '../../engine/core/model.js';
import { describeSqliteError, openReadOnly, type Db } from './db-open.js';
import { dbRevision } from './db-revision.js';
import { existingIds, readLinks, type SessionLink } from './db-reader.js';
import { buildLineage, type Lineage } from './lineage.js';
import { chooseDatabase } from './paths.js';
import { readSchema } from './schema.js';
import { RouteRefused } from '../shared/official-delete.js';

/** Session ids OpenCode's CLI and server accept: `ses_` + [A-Za-z0-9_-], at most 128 characters. */
export const SESSION_ID = /^ses_[A-Za-z0-9_-]{1,124}$/;

export interface StoreView {
  db: string;
  revision: string;
  lineage: Lineage;
  sessions: Map<string, SessionLink>;
}

export function loadStore(inst: Installation, ctx: HostContext): StoreView {
  const choice = chooseDatabase(inst, ctx);
  if (!choice.db) throw new RouteRefused(choice.reason ?? 'No OpenCode database was found.');
  const revision = dbRevision(choice.db);
  const opened = openReadOnly(choice.db);
  if (!opened.ok) throw new RouteRefused(opened.reason);
  try {
    const schema = readSchema(opened.db);
    if (!schema.recognized) throw new RouteRefused(schema.reason ?? 'The OpenCode database schema is not recognized.');
    const links = readLinks(opened.db);
    return {
      db: choice.db,
      revision,
      lineage: buildLineage(links),
      sessions: new Map(links.map((l) => [l.id, l])),
    };
  } catch (e) {
    if (e instanceof RouteRefused) throw e;
    throw new RouteRefused(describeSqliteError(e));
  } finally {
    opened.close();
  }
}

export function validateIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0) throw new RouteRefused('No OpenCode session was given.');
  const out = new Set<string>();
  for (const id of ids) {
    if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new RouteRefused(`Not an OpenCode session id: ${JSON.stringify(String(id).slice(0, 64))}.`);
    out.add(id);
  }
  return [...out];
}

export function requireKnown(store: StoreView, ids: readonly string[]): void {
  const unknown = ids.filter((id) => !store.sessions.has(id));
  if (unknown.length)
    throw new RouteRefused(
      `Not in the OpenCode database (rescan): ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}.`,
    );
  const cyclic = ids.filter((id) => store.lineage.inCycle.has(id));
  if (cyclic.length)
    throw new RouteRefused(`OpenCode parent links form a cycle at ${cyclic.slice(0, 5).join(', ')}; OpenCode's recursive delete would not finish.`);
}

export function requireRevision(store: StoreView, expected: string | undefined): void {
  if (expected !== undefined && expected !== store.revision) {
    throw new RouteRefused('The OpenCode database changed after the inventory scan; rescan and review again.');
  }
}

/** A read-only connection for proving results, live (it must see what OpenCode changes meanwhile); the caller closes it. */
export function openForCheck(db: string): Db {
  const opened = openReadOnly(db, '/proc', true);
  if (!opened.ok) throw new RouteRefused(opened.reason);
  return opened.db;
}

export function stillPresent(db: Db, ids: readonly string[]): Set<string> {
  return existingIds(db, ids);
}
