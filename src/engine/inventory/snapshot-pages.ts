// Paging over one snapshot: the flattened, filtered, sorted flat and tree
// views, cut into pages of rows. The UI never holds the session records: it
// asks for ≤100 rows at a time, by offset into the view.

import type { Forest, SessionNode } from './forest.js';
import type { SnapshotIndex } from './snapshot-index.js';
import type { SnapshotOrder } from './snapshot-order.js';
import { CONTEXT_ROW_REASON, PROVISIONAL_REASON } from './detail-text.js';
import type { PageRequest, PageResult, Row, SessionFilter } from '../core/model.js';
import type { AgentSweep } from '../core/model.js';
import { filterActive, RequestError, validateFilter, validatePage } from '../core/validate.js';

const DAY = 86_400_000;

interface FlatView {
  /** Encoded entries: >= 0 session node index, < 0 project index as -(idx+1). */
  entries: Int32Array;
  depth: Uint8Array;
  context: Uint8Array;
  expanded: Uint8Array;
  expandable: Uint8Array;
  matched: number;
  matchedBytes: number;
  /** Per project index, in a filtered view: matching sessions and their bytes. */
  /** Per project: its matching sessions, their size and their latest update (what its row shows under a filter). */
  projectMatched?: { count: Uint32Array; bytes: Float64Array; latest: Float64Array };
}

/**
 * A view's columns written in place, at most `capacity` rows: a 100k-row view
 * built through JS arrays left five 100k-element arrays per build in the
 * large-object space, freed only by a full collection.
 */
class ViewColumns {
  readonly entries: Int32Array;
  readonly depth: Uint8Array;
  readonly context: Uint8Array;
  readonly expanded: Uint8Array;
  readonly expandable: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.entries = new Int32Array(capacity);
    this.depth = new Uint8Array(capacity);
    this.context = new Uint8Array(capacity);
    this.expanded = new Uint8Array(capacity);
    this.expandable = new Uint8Array(capacity);
  }

  push(entry: number, depth: number, context: number, expanded: number, expandable: number): void {
    const i = this.length++;
    this.entries[i] = entry;
    this.depth[i] = depth;
    this.context[i] = context;
    this.expanded[i] = expanded;
    this.expandable[i] = expandable;
  }

  /** Exactly `length` rows (a view's total is its entries' length). */
  trimmed(): Pick<FlatView, 'entries' | 'depth' | 'context' | 'expanded' | 'expandable'> {
    const n = this.length;
    const fit = <T extends Int32Array | Uint8Array>(a: T): T => (a.length === n ? a : (a.slice(0, n) as T));
    return { entries: fit(this.entries), depth: fit(this.depth), context: fit(this.context), expanded: fit(this.expanded), expandable: fit(this.expandable) };
  }
}

/** What of a snapshot the pages read. */
interface PagesSource {
  readonly id: string;
  readonly scannedAt: number;
  readonly provisional: boolean;
  readonly inventory?: { readonly sweep?: AgentSweep };
}

export class SnapshotPages {
  private cacheKey = '';
  private cacheView: FlatView | null = null;

  constructor(
    private readonly snap: PagesSource,
    private readonly forest: Forest,
    private readonly index: SnapshotIndex,
    private readonly order: SnapshotOrder,
  ) {}

  page(req: PageRequest): PageResult {
    if (req.snapshotId !== this.snap.id) throw new RequestError('stale snapshot');
    validatePage(req, this.index.knownProject);
    const view = this.view(req);
    const total = view.entries.length;
    if (req.offset > total) throw new RequestError(`page offset ${req.offset} is past the end (${total} rows)`);
    const rows: Row[] = [];
    const end = Math.min(total, req.offset + req.limit);
    for (let i = req.offset; i < end; i++) rows.push(this.row(view, i));
    return { snapshotId: this.snap.id, total, offset: req.offset, rows, matched: view.matched, matchedBytes: view.matchedBytes };
  }

  /** Selectable, matching session item ids in a filtered scope (for "mark all"). */
  matchIds(filter: SessionFilter): { ids: string[]; bytes: number } {
    validateFilter(filter, this.index.knownProject);
    const match = this.matcher(filter);
    const ids: string[] = [];
    let bytes = 0;
    for (const n of this.forest.nodes) {
      if (!n.s.selectable || !match(n)) continue;
      if (filter.projectId !== undefined && n.projectKey !== filter.projectId) continue;
      ids.push(n.s.itemId);
      bytes += n.s.bytes;
    }
    return { ids, bytes };
  }

  /**
   * Lower-cased title + cwd + id per node, for the text filter. Built on the
   * first text filter only: most views never filter, and a provisional
   * snapshot should not pay ~200 bytes a session for it.
   */
  private haystacks: string[] | null = null;

  private matcher(f: SessionFilter): (n: SessionNode) => boolean {
    const text = f.text?.trim().toLowerCase() ?? '';
    let hay: string[] = [];
    if (text) {
      this.haystacks ??= this.forest.nodes.map((n) => `${n.s.title}\n${n.s.cwd ?? ''}\n${n.s.id}`.toLowerCase());
      hay = this.haystacks;
    }
    const now = this.snap.scannedAt;
    let lo = -Infinity;
    let hi = Infinity;
    switch (f.updated) {
      case 'within7':
        lo = now - 7 * DAY;
        break;
      case 'within30':
        lo = now - 30 * DAY;
        break;
      case 'older30':
        hi = now - 30 * DAY;
        break;
      case 'older90':
        hi = now - 90 * DAY;
        break;
      case 'agentSweep': {
        // What the agent deletes at its next start: older than its period (Claude compares the file's mtime, our updatedAt).
        const days = this.snap.inventory?.sweep?.sessionDays;
        hi = typeof days === 'number' ? now - days * DAY : -Infinity;
        break;
      }
      default:
        break;
    }
    const timed = lo !== -Infinity || hi !== Infinity;
    const exempt = f.updated === 'agentSweep' ? this.snap.inventory?.sweep?.exempt?.sources : undefined;
    return (n) => {
      const s = n.s;
      if (text && !hay[n.idx]!.includes(text)) return false;
      if (timed) {
        const t = s.updatedAt ?? 0;
        if (t < lo || t >= hi) return false;
      }
      if (exempt?.includes(s.source)) return false;
      if (f.state && s.state !== f.state) return false;
      if (f.source && s.source !== f.source) return false;
      return true;
    };
  }

  private view(req: PageRequest): FlatView {
    const key = JSON.stringify([req.scope, req.filter, req.sort, req.reverse === true]);
    if (key === this.cacheKey && this.cacheView) return this.cacheView;
    const exp = req.scope.expansion ?? { base: 'default', toggled: [] };
    const baseKey = JSON.stringify([req.scope.view, exp.base, req.filter, req.sort, req.reverse === true]);
    let v: FlatView | null = null;
    // Expanding or collapsing one node splices its subtree in or out instead of re-flattening 100k rows.
    if (this.cacheView && baseKey === this.cacheBaseKey && req.scope.view === 'tree' && !filterActive(req.filter) && req.filter.projectId === undefined) {
      const now = new Set(exp.toggled);
      const flipped = [...now].filter((x) => !this.cacheToggled.has(x)).concat([...this.cacheToggled].filter((x) => !now.has(x)));
      if (flipped.length === 1) v = this.spliceToggle(this.cacheView, req, now, flipped[0]!);
    }
    v ??= req.scope.view === 'flat' ? this.flatView(req) : this.treeView(req);
    this.cacheKey = key;
    this.cacheBaseKey = baseKey;
    this.cacheToggled = new Set(exp.toggled);
    this.cacheView = v;
    return v;
  }

  private cacheBaseKey = '';
  private cacheToggled = new Set<string>();

  /** The unfiltered tree view with one node's open state flipped; null when a full rebuild is safer. */
  private spliceToggle(v: FlatView, req: PageRequest, toggled: Set<string>, id: string): FlatView | null {
    const base = req.scope.expansion?.base ?? 'default';
    const p = this.forest.projectById.get(id);
    const n = p ? undefined : this.index.session(id);
    if (!p && !n) return null;
    const code = p ? -(p.idx + 1) : n!.idx;
    const i = v.entries.indexOf(code);
    if (i < 0 || v.depth[i]! >= 254) return i < 0 ? v : null;
    if (!v.expandable[i]) return v;
    const openBy = (nodeId: string, isProject: boolean): boolean => {
      const o = base === 'allOpen' ? true : base === 'allClosed' ? false : isProject;
      return toggled.has(nodeId) ? !o : o;
    };
    const open = openBy(id, Boolean(p));
    if (open === (v.expanded[i] === 1)) return v;
    let end = i + 1;
    if (!open) while (end < v.entries.length && v.depth[end]! > v.depth[i]!) end++;
    const ins = new ViewColumns(open ? this.forest.nodes.length : 0);
    if (open) {
      const sorted = this.order.get(req.sort, req.reverse);
      const kids = p ? sorted.top[p.idx]! : (sorted.children.get(n!.idx) ?? []);
      const stack: [SessionNode, number][] = [];
      for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k]!, v.depth[i]! + 1]);
      while (stack.length) {
        const [cur, dep] = stack.pop()!;
        const ck = sorted.children.get(cur.idx);
        const has = Boolean(ck?.length);
        const o = has && openBy(cur.s.itemId, false);
        ins.push(cur.idx, Math.min(dep, 255), 0, o ? 1 : 0, has ? 1 : 0);
        if (o) for (let k = ck!.length - 1; k >= 0; k--) stack.push([ck![k]!, dep + 1]);
      }
    }
    const len = v.entries.length - (end - i - 1) + ins.length;
    const splice = <T extends Int32Array | Uint8Array>(src: T, add: T, make: (n: number) => T): T => {
      const out = make(len);
      out.set(src.subarray(0, i + 1), 0);
      out.set(add.subarray(0, ins.length), i + 1);
      out.set(src.subarray(end), i + 1 + ins.length);
      return out;
    };
    const expanded = splice(v.expanded, ins.expanded, (k) => new Uint8Array(k));
    expanded[i] = open ? 1 : 0;
    return {
      entries: splice(v.entries, ins.entries, (k) => new Int32Array(k)),
      depth: splice(v.depth, ins.depth, (k) => new Uint8Array(k)),
      context: new Uint8Array(len),
      expanded,
      expandable: splice(v.expandable, ins.expandable, (k) => new Uint8Array(k)),
      matched: v.matched,
      matchedBytes: v.matchedBytes,
      projectMatched: v.projectMatched,
    };
  }

  private flatView(req: PageRequest): FlatView {
    const match = this.matcher(req.filter);
    const pid = req.filter.projectId;
    const out = new Int32Array(this.forest.nodes.length);
    let len = 0;
    let bytes = 0;
    for (const n of this.order.get(req.sort, req.reverse).flat) {
      if (pid !== undefined && n.projectKey !== pid) continue;
      if (!match(n)) continue;
      out[len++] = n.idx;
      bytes += n.s.bytes;
    }
    return {
      entries: len === out.length ? out : out.slice(0, len),
      depth: new Uint8Array(len),
      context: new Uint8Array(len),
      expanded: new Uint8Array(len),
      expandable: new Uint8Array(len),
      matched: len,
      matchedBytes: bytes,
    };
  }

  private treeView(req: PageRequest): FlatView {
    const f = req.filter;
    const active = filterActive(f);
    const nodes = this.forest.nodes;
    // visible: 2 = matches, 1 = ancestor kept as context, 0 = hidden
    const visible = new Uint8Array(nodes.length);
    // 1 = some match lies below (a matching ancestor opens too, so no match hides behind it)
    const above = new Uint8Array(nodes.length);
    let matched = 0;
    let matchedBytes = 0;
    const pid = f.projectId;
    let projectMatched: FlatView['projectMatched'];
    if (active) {
      const match = this.matcher(f);
      const count = new Uint32Array(this.forest.projects.length);
      const bytes = new Float64Array(this.forest.projects.length);
      const latest = new Float64Array(this.forest.projects.length);
      projectMatched = { count, bytes, latest };
      for (const n of nodes) {
        if (!match(n)) continue;
        if (pid === undefined || n.projectKey === pid) {
          const p = this.forest.projectById.get(n.projectKey);
          if (p) {
            count[p.idx]!++;
            bytes[p.idx]! += n.s.bytes;
            latest[p.idx] = Math.max(latest[p.idx]!, n.s.updatedAt ?? 0);
          }
          matched++;
          matchedBytes += n.s.bytes;
        }
        visible[n.idx] = 2;
        for (let a = n.treeParent; a && above[a.idx] === 0; a = a.treeParent) {
          above[a.idx] = 1;
          if (visible[a.idx] === 0) visible[a.idx] = 1;
        }
      }
    } else {
      visible.fill(2);
      for (const n of nodes) {
        if (pid !== undefined && n.projectKey !== pid) continue;
        matched++;
        matchedBytes += n.s.bytes;
      }
    }
    const exp = req.scope.expansion ?? { base: 'default', toggled: [] };
    const toggled = new Set(exp.toggled);
    const isOpen = (id: string, isProject: boolean, hasMatchBelow: boolean): boolean => {
      let open: boolean;
      if (exp.base === 'allOpen') open = true;
      else if (exp.base === 'allClosed') open = false;
      else open = isProject || (active && hasMatchBelow);
      return toggled.has(id) ? !open : open;
    };
    const sorted = this.order.get(req.sort, req.reverse);
    // Every node and project is written at most once.
    const cols = new ViewColumns(nodes.length + this.forest.projects.length);
    // Explicit stacks (no per-node tuples): a fork chain can be thousands deep and the tree 100k wide.
    const stackNodes: SessionNode[] = [];
    const stackDepth: number[] = [];
    const visit = (n: SessionNode, d: number): void => {
      stackNodes.push(n);
      stackDepth.push(d);
      while (stackNodes.length) {
        const cur = stackNodes.pop()!;
        const dep = stackDepth.pop()!;
        if (visible[cur.idx] === 0) continue;
        const kids = sorted.children.get(cur.idx);
        const hasKids = kids ? (active ? kids.some((k) => visible[k.idx] !== 0) : true) : false;
        const isCtx = visible[cur.idx] === 1;
        const open = hasKids && isOpen(cur.s.itemId, false, hasKids);
        cols.push(cur.idx, Math.min(dep, 255), isCtx ? 1 : 0, open ? 1 : 0, hasKids ? 1 : 0);
        if (open && kids) {
          for (let i = kids.length - 1; i >= 0; i--) {
            stackNodes.push(kids[i]!);
            stackDepth.push(dep + 1);
          }
        }
      }
    };
    for (const p of sorted.projects) {
      if (pid !== undefined && p.id !== pid) continue;
      const top = sorted.top[p.idx]!;
      if (active && !top.some((n) => visible[n.idx] !== 0)) continue;
      const open = isOpen(p.id, true, false);
      cols.push(-(p.idx + 1), 0, 0, open ? 1 : 0, 1);
      if (open) for (const n of top) visit(n, 1);
    }
    return {
      ...cols.trimmed(),
      matched,
      matchedBytes,
      projectMatched,
    };
  }

  private row(v: FlatView, i: number): Row {
    const e = v.entries[i]!;
    if (e < 0) {
      const p = this.forest.projects[-e - 1]!;
      return {
        kind: 'project',
        id: p.id,
        depth: 0,
        title: p.label,
        projectLabel: p.label,
        source: p.virtual ? '' : (p.roots[0] ?? ''),
        state: '',
        updatedAt: (v.projectMatched ? v.projectMatched.latest[p.idx] : p.latest) || null,
        bytes: p.bytes,
        childCount: p.sessions,
        expandable: true,
        expanded: v.expanded[i] === 1,
        context: false,
        selectable: false,
        named: true,
        ...(v.projectMatched ? { matchedSessions: v.projectMatched.count[p.idx]!, matchedBytes: v.projectMatched.bytes[p.idx]! } : {}),
      };
    }
    const n = this.forest.nodes[e]!;
    const s = n.s;
    const ctx = v.context[i] === 1;
    return {
      kind: 'session',
      id: s.itemId,
      depth: v.depth[i]!,
      title: s.title,
      projectLabel: this.forest.projectById.get(n.projectKey)?.label ?? '',
      source: s.source,
      state: s.state,
      updatedAt: s.updatedAt,
      bytes: s.bytes,
      childCount: n.children.length,
      expandable: v.expandable[i] === 1,
      expanded: v.expanded[i] === 1,
      context: ctx,
      selectable: s.selectable && !ctx && !this.snap.provisional,
      blockedReason: this.snap.provisional ? PROVISIONAL_REASON : ctx ? CONTEXT_ROW_REASON : s.blockedReason,
      named: s.named,
    };
  }
}
