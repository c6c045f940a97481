// The retention plan as a file: what `cleanerx plan --json` writes and
// `cleanerx clean --plan FILE` runs. The file is hostile input (anyone may
// have edited it): it is read bounded, validated field by field, and only
// ever used to name ids and revisions that a fresh scan must reproduce
// exactly — never a path, never a size taken on trust.

import { agentKinds, isAgentKind } from '../../core/agents.js';
import { createHash } from 'node:crypto';
import { readRegularTextAsync } from '../../host/bounded-read.js';
import { isoOrNull } from '../../core/format.js';
import type { AgentKind, CleanupPlan } from '../../core/model.js';
import type { Snapshot } from '../snapshot.js';
import { RequestError } from '../../core/validate.js';
import { RULE_KEYS, validateRules, type RetentionRules, type RuleMatch } from './rules.js';
import { JsonTooDeepError, parseBoundedJson } from '../../core/bounded-json.js';

const PLAN_FILE_VERSION = 1;
/** ~100k items at ~500 bytes each. */
const PLAN_FILE_MAX_BYTES = 64 * 1024 * 1024;
const MAX_ITEMS = 200_000;

interface PlanFileItem {
  id: string;
  title: string;
  bytes: number;
  reason: string;
  /** What the scan saw of the item's tree; the plan runs only while it is unchanged. */
  revision: string;
  /** Present for a session the agent's route removes together with the selected one (its item id). */
  removedWith?: string;
}

interface PlanFileSkipped {
  id: string;
  title: string;
  bytes: number;
  reason: string;
}

export interface PlanFile {
  version: typeof PLAN_FILE_VERSION;
  agent: AgentKind;
  snapshot: { scannedAt: string | null; home: string; sessions: number };
  rules: RetentionRules;
  items: PlanFileItem[];
  skipped: PlanFileSkipped[];
  notes: string[];
  totals: { items: number; bytes: number; skipped: number };
  /** archive / unarchive: the items are archived through the agent's route, nothing removed (absent: delete). */
  action?: 'archive' | 'unarchive';
}

/** Refusal to run a plan file: exit 1, nothing changed. */
export class PlanRefusedError extends Error {
  readonly refused = true;
}

/**
 * An item's revision in this snapshot: the adapter's source revision (the
 * tree walk or file identity the executor checks too) when it has one, else
 * a digest of what the scan recorded (update time, size, paths).
 */
function itemRevision(snap: Snapshot, itemId: string): string {
  const n = snap.session(itemId);
  const it = n ? undefined : snap.item(itemId);
  const meta = n ? n.s.metadata : it?.metadata;
  const src = meta?.sourceRevision;
  const h = createHash('sha256');
  h.update(JSON.stringify(n ? [n.s.updatedAt, n.s.bytes, n.s.paths, n.s.deletionDescendantIds] : [it?.modifiedAt ?? null, it?.bytes ?? 0, it?.paths ?? []]));
  if (typeof src === 'string') h.update(`\0${src}`);
  return h.digest('hex').slice(0, 32);
}

export function planFileFrom(snap: Snapshot, rules: RetentionRules, match: RuleMatch, plan: CleanupPlan | null): PlanFile {
  const reasons = new Map(match.matched.map((m) => [m.id, m.reason]));
  // The planner lists each root (depth 0) right before the descendants its route removes with it.
  const rootOf = new Map<string, string>();
  let root = '';
  for (const i of plan?.items ?? []) {
    if (i.depth === 0) root = i.id;
    else rootOf.set(i.id, root);
  }
  const items: PlanFileItem[] = (plan?.items ?? []).map((i) => {
    const item: PlanFileItem = {
      id: i.id,
      title: i.label,
      bytes: i.bytes,
      reason: reasons.get(i.id) ?? i.includedBecause ?? 'removed with a selected session',
      revision: itemRevision(snap, i.id),
    };
    if (i.includedBecause) {
      item.reason = i.includedBecause;
      const root = rootOf.get(i.id);
      if (root) item.removedWith = root;
    }
    return item;
  });
  return {
    version: PLAN_FILE_VERSION,
    agent: snap.agent,
    snapshot: { scannedAt: isoOrNull(snap.scannedAt), home: snap.installation.home, sessions: snap.forest.nodes.length },
    rules,
    items,
    skipped: match.skipped.map((s) => ({ id: s.id, title: s.title, bytes: s.bytes, reason: s.reason })),
    notes: [...match.notes, ...(plan?.routeNotes ?? [])],
    totals: { items: items.length, bytes: items.reduce((a, i) => a + i.bytes, 0), skipped: match.skipped.length },
    ...(plan?.action === 'archive' || plan?.action === 'unarchive' ? { action: plan.action } : {}),
  };
}

// ---- reading ------------------------------------------------------------------

/** `plan --agent all --json`: one plan file per agent, each exactly the single agent's file. */
export interface PlanSetFile {
  version: typeof PLAN_FILE_VERSION;
  plans: PlanFile[];
}

/** The plan files a file holds: one (a single agent's file), or each agent's of a plan set, checked whole and in order. */
export async function readPlanFiles(path: string): Promise<PlanFile[]> {
  const v = await readPlanJson(path);
  if (!isObj(v) || !('plans' in v)) return [validatePlanFile(v)];
  exactKeys(v, ['version', 'plans'], [], 'the plan set');
  if (v.version !== PLAN_FILE_VERSION) throw bad(`version ${JSON.stringify(v.version)?.slice(0, 20)} is not ${PLAN_FILE_VERSION}`);
  if (!Array.isArray(v.plans) || v.plans.length === 0 || v.plans.length > agentKinds().length) throw bad('plans is not a list of one plan per agent');
  const agents = new Set<unknown>();
  return v.plans.map((p: unknown, i: number) => {
    let file: PlanFile;
    try {
      file = validatePlanFile(p);
    } catch (e) {
      throw new RequestError((e as Error).message.replace('The plan file is not valid: ', `The plan file is not valid: plan ${i + 1}: `));
    }
    if (agents.has(file.agent)) throw bad(`plan ${i + 1} repeats the agent ${file.agent}`);
    agents.add(file.agent);
    return file;
  });
}

async function readPlanJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readRegularTextAsync(path, PLAN_FILE_MAX_BYTES);
  } catch (e) {
    throw new RequestError(`Cannot read the plan file: ${(e as Error).message}`);
  }
  let v: unknown;
  try {
    v = parseBoundedJson(text);
  } catch (e) {
    if (e instanceof JsonTooDeepError)
      throw new RequestError(`${path} is not a plan file (${e.message}); make it with cleanerx plan --agent A [rules] --json > FILE.`);
    throw new RequestError(`${path} is not JSON; make it with cleanerx plan --agent A [rules] --json > FILE.`);
  }
  return v;
}

const bad = (what: string): RequestError => new RequestError(`The plan file is not valid: ${what}; make a new one with cleanerx plan --json.`);

function exactKeys(o: Record<string, unknown>, required: readonly string[], optional: readonly string[], where: string): void {
  for (const k of required) if (!(k in o)) throw bad(`${where} has no "${k}"`);
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) throw bad(`${where} has an unknown field "${k.slice(0, 40)}"`);
}

const isObj = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown, max: number): boolean => typeof v === 'string' && v.length <= max;
const size = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function validatePlanFile(v: unknown): PlanFile {
  if (!isObj(v)) throw bad('it is not an object');
  exactKeys(v, ['version', 'agent', 'snapshot', 'rules', 'items', 'skipped', 'totals'], ['notes', 'action'], 'the plan');
  if (v.action !== undefined && v.action !== 'archive' && v.action !== 'unarchive') throw bad('the action is not archive or unarchive');
  if (v.version !== PLAN_FILE_VERSION) throw bad(`version ${JSON.stringify(v.version)?.slice(0, 20)} is not ${PLAN_FILE_VERSION}`);
  if (!isAgentKind(v.agent)) throw bad('the agent is unknown');
  if (!isObj(v.snapshot)) throw bad('snapshot is not an object');
  exactKeys(v.snapshot, ['scannedAt', 'home', 'sessions'], [], 'snapshot');
  if (!(v.snapshot.scannedAt === null || text(v.snapshot.scannedAt, 40)) || !text(v.snapshot.home, 4096) || !size(v.snapshot.sessions))
    throw bad('snapshot has an invalid field');
  try {
    validateRules(v.rules);
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (!Array.isArray(v.items) || v.items.length === 0) throw bad('it lists no items');
  if (v.items.length > MAX_ITEMS) throw bad(`it lists more than ${MAX_ITEMS} items`);
  const ids = new Set<string>();
  v.items.forEach((it: unknown, i: number) => {
    const where = `item ${i + 1}`;
    if (!isObj(it)) throw bad(`${where} is not an object`);
    exactKeys(it, ['id', 'title', 'bytes', 'reason', 'revision'], ['removedWith'], where);
    if (!text(it.id, 512) || !(it.id as string)) throw bad(`${where} has no valid id`);
    if (!text(it.title, 4096) || !text(it.reason, 4096)) throw bad(`${where} has an invalid title or reason`);
    if (!size(it.bytes)) throw bad(`${where} has an invalid size`);
    if (typeof it.revision !== 'string' || !/^[0-9a-f]{32}$/.test(it.revision)) throw bad(`${where} has an invalid revision`);
    if (it.removedWith !== undefined && (!text(it.removedWith, 512) || !ids.has(it.removedWith as string)))
      throw bad(`${where} is removed with an item listed nowhere before it`);
    if (ids.has(it.id as string)) throw bad(`${where} repeats an id`);
    ids.add(it.id as string);
  });
  if (!Array.isArray(v.skipped) || v.skipped.length > MAX_ITEMS) throw bad('skipped is not a list');
  v.skipped.forEach((it: unknown, i: number) => {
    const where = `skipped entry ${i + 1}`;
    if (!isObj(it)) throw bad(`${where} is not an object`);
    exactKeys(it, ['id', 'title', 'bytes', 'reason'], [], where);
    if (!text(it.id, 512) || !text(it.title, 4096) || !text(it.reason, 4096) || !size(it.bytes)) throw bad(`${where} has an invalid field`);
  });
  if (v.notes !== undefined && (!Array.isArray(v.notes) || !v.notes.every((n) => text(n, 4096)))) throw bad('notes is not a list of text');
  if (!isObj(v.totals)) throw bad('totals are invalid');
  exactKeys(v.totals, ['items', 'bytes', 'skipped'], [], 'totals');
  if (!size(v.totals.items) || !size(v.totals.bytes) || !size(v.totals.skipped)) throw bad('totals are invalid');
  if (v.totals.items !== v.items.length) throw bad('totals.items does not count the items');
  return v as unknown as PlanFile;
}

/** The ids the plan selected (its roots); the rest must come back as the route's descendants. */
export function selectedIds(file: PlanFile): string[] {
  return file.items.filter((i) => i.removedWith === undefined).map((i) => i.id);
}

/**
 * Compares the fresh plan of a fresh scan with the file, item by item: the
 * same items (none gone, none new: a new descendant would go too) with the
 * same revisions. Throws a PlanRefusedError with the first difference.
 */
export function assertPlanUnchanged(file: PlanFile, snap: Snapshot, fresh: CleanupPlan): void {
  const stale = (why: string): PlanRefusedError => new PlanRefusedError(`The plan is out of date: ${why}. Nothing was removed; make a new plan.`);
  if (fresh.agent !== file.agent) throw stale('it is for another agent');
  // Checked whole: a plan made for another home, or edited, is refused naming the field.
  const refused = (field: string, why: string): PlanRefusedError =>
    new PlanRefusedError(`The plan is refused: its ${field} ${why}. Nothing was removed; make a new plan.`);
  if (file.snapshot.home !== snap.installation.home)
    throw refused('snapshot.home', `names ${clip(file.snapshot.home)}, not the home being cleaned (${clip(snap.installation.home)})`);
  if (file.totals.items !== file.items.length) throw refused('totals.items', `says ${file.totals.items}, but it lists ${file.items.length} items`);
  const sum = file.items.reduce((a, i) => a + i.bytes, 0);
  if (file.totals.bytes !== sum) throw refused('totals.bytes', `says ${file.totals.bytes}, but its items add up to ${sum}`);
  if (file.totals.skipped !== file.skipped.length) throw refused('totals.skipped', `says ${file.totals.skipped}, but it lists ${file.skipped.length}`);
  const want = new Map(file.items.map((i) => [i.id, i]));
  const freshById = new Map(fresh.items.map((i) => [i.id, i]));
  const got = new Set(fresh.items.map((i) => i.id));
  for (const i of fresh.items) if (!want.has(i.id)) throw stale(`${clip(i.label)} (${clip(i.id)}) would also be removed and is not in the plan`);
  // What is gone is named before what changed (a root whose descendant went changed too).
  for (const i of file.items) if (!got.has(i.id)) throw stale(`${clip(i.title)} (${clip(i.id)}) is gone or no longer removed with its session`);
  for (const i of file.items) if (itemRevision(snap, i.id) !== i.revision) throw stale(`${clip(i.title)} (${clip(i.id)}) changed since the plan was made`);
  for (const i of file.items) {
    const f = freshById.get(i.id)!;
    if (f.bytes !== i.bytes) throw refused(`bytes of ${clip(i.id)}`, `say ${i.bytes}, but the scan measures ${f.bytes}`);
    if (f.label !== i.title) throw refused(`title of ${clip(i.id)}`, `is "${clip(i.title)}", but the scan shows "${clip(f.label)}"`);
  }
}

const clip = (s: string): string => (s.length > 80 ? `${s.slice(0, 79)}…` : s);

export { RULE_KEYS };
