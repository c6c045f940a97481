// One scan's immutable result, and the paging over it. The UI never holds
// the session records: it asks for ≤100 rows at a time, by offset into the
// flattened, filtered, sorted view.

import { randomUUID } from 'node:crypto';
import { countDescendants, buildForest, type Forest, type ProjectNode, type SessionNode } from './forest.js';
import { formatBytes, formatDate } from '../core/format.js';
import {
  CATEGORIES,
  NO_PROJECT_ID,
  type AgentKind,
  type Category,
  type CategoryTotal,
  type Detail,
  type Installation,
  type Inventory,
  type Item,
  type PageRequest,
  type PageResult,
  type Row,
  type ScanSummary,
  type SessionFilter,
  type SortKey,
} from '../core/model.js';
import { itemSweepText, sessionSweepText } from './agent-sweep.js';
import { SelectionBuilder } from './selection.js';
import { filterActive, RequestError, validateFilter, validatePage } from '../core/validate.js';

const DAY = 86_400_000;
export const PROVISIONAL_REASON = 'Still scanning: marks are available when the scan finishes.';

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
  projectMatched?: { count: Uint32Array; bytes: Float64Array };
}

function projectComparator(key: SortKey, reverse = false): (a: ProjectNode, b: ProjectNode) => number {
  const dir = reverse ? -1 : 1;
  return (a, b) => {
    // Sessions without a project stay last in either direction.
    if (a.virtual !== b.virtual) return a.virtual ? 1 : -1;
    if (key === 'size') return dir * (b.bytes - a.bytes || a.label.localeCompare(b.label));
    if (key === 'title') return dir * (a.label.toLowerCase() < b.label.toLowerCase() ? -1 : a.label.toLowerCase() > b.label.toLowerCase() ? 1 : 0);
    return dir * (b.latest - a.latest || a.label.localeCompare(b.label));
  };
}

export class Snapshot {
  readonly id = randomUUID();
  readonly forest: Forest;
  readonly items: Item[];
  private readonly itemById = new Map<string, Item>();
  /**
   * Sessions whose item id is not `session:<id>` of the node the forest keys
   * by that id (none for today's adapters): the rest are found through
   * forest.nodeById, without a second 100k-entry map.
   */
  private readonly otherItemIds = new Map<string, SessionNode>();
  private sorted = new Map<string, { projects: ProjectNode[]; top: SessionNode[][]; children: Map<number, SessionNode[]>; flat: SessionNode[] }>();
  private cacheKey = '';
  private cacheView: FlatView | null = null;

  constructor(
    readonly agent: AgentKind,
    readonly installation: Installation,
    readonly inventory: Inventory,
    readonly scannedAt: number,
    readonly durationMs: number,
    /** Built from a scan still running: read-only, no selection index, replaced by the final one. */
    readonly provisional = false,
  ) {
    this.forest = buildForest(inventory.sessions, inventory.projects);
    this.items = inventory.items;
    for (const it of this.items) this.itemById.set(it.id, it);
    for (const n of this.forest.nodes) if (!this.byOwnId(n.s.itemId, n)) this.otherItemIds.set(n.s.itemId, n);
  }

  get warnings() {
    return [...this.inventory.warnings, ...this.forest.warnings];
  }

  knownProject = (id: string): boolean => this.forest.projectById.has(id);

  session(itemId: string): SessionNode | undefined {
    // As one map over every node would answer: the later node wins an item id both paths know.
    const direct = this.byOwnId(itemId);
    const other = this.otherItemIds.get(itemId);
    return direct && other ? (direct.idx > other.idx ? direct : other) : (direct ?? other);
  }

  /** The node keyed by the id inside `session:<id>`, when its item id is exactly that (and it is `want`, if given). */
  private byOwnId(itemId: string, want?: SessionNode): SessionNode | undefined {
    if (!itemId.startsWith('session:')) return undefined;
    const n = this.forest.nodeById.get(itemId.slice(8));
    return n && n.s.itemId === itemId && (want === undefined || n === want) ? n : undefined;
  }

  item(itemId: string): Item | undefined {
    return this.itemById.get(itemId);
  }

  // ---- summary ----------------------------------------------------------

  /** `compact`: the selection index as typed arrays (`selectionIndex`), `selection` left empty. */
  summary(compact = false): ScanSummary {
    const byCategory: Partial<Record<Category, CategoryTotal>> = {};
    const add = (c: Category, bytes: number): void => {
      const t = (byCategory[c] ??= { bytes: 0, items: 0 });
      t.bytes += bytes;
      t.items++;
    };
    let archived = 0;
    const sources = new Set<string>();
    const ages = [
      { label: '< 7 days', max: 7, sessions: 0, bytes: 0 },
      { label: '7–30 days', max: 30, sessions: 0, bytes: 0 },
      { label: '30–90 days', max: 90, sessions: 0, bytes: 0 },
      { label: '> 90 days', max: Infinity, sessions: 0, bytes: 0 },
    ];
    for (const n of this.forest.nodes) {
      const s = n.s;
      add(s.state === 'archived' ? 'archivedSession' : 'session', s.bytes);
      if (s.state === 'archived') archived++;
      sources.add(s.source);
      const age = s.updatedAt == null ? Infinity : (this.scannedAt - s.updatedAt) / DAY;
      const bucket = ages.find((a) => age < a.max) ?? ages[ages.length - 1]!;
      bucket.sessions++;
      bucket.bytes += s.bytes;
    }
    for (const it of this.items) add(it.category, it.bytes);
    const totals: CategoryTotal = { bytes: 0, items: 0 };
    for (const c of CATEGORIES) {
      if (c === 'protected') continue;
      totals.bytes += byCategory[c]?.bytes ?? 0;
      totals.items += byCategory[c]?.items ?? 0;
    }
    // The ten largest, as a stable sort by size would list them (no copy and sort of every node).
    const largest: SessionNode[] = [];
    for (const n of this.forest.nodes) {
      if (largest.length === 10 && n.s.bytes <= largest[9]!.s.bytes) continue;
      let i = largest.length;
      while (i > 0 && largest[i - 1]!.s.bytes < n.s.bytes) i--;
      largest.splice(i, 0, n);
      if (largest.length > 10) largest.pop();
    }
    return {
      snapshotId: this.id,
      agent: this.agent,
      installation: this.installation,
      scannedAt: this.scannedAt,
      durationMs: this.durationMs,
      totals,
      byCategory,
      sessionCount: this.forest.nodes.length,
      archivedSessionCount: archived,
      sources: [...sources].sort(),
      // Only the projects' order: the full 'size' view (every node sorted) is built when a page asks for it.
      projects: (this.sorted.get('size')?.projects ?? [...this.forest.projects].sort(projectComparator('size'))).map((p) => ({ id: p.id, label: p.label, roots: p.roots, sessions: p.sessions, bytes: p.bytes })),
      largestSessions: largest.map((n) => ({
        id: n.s.itemId,
        title: n.s.title,
        bytes: n.s.bytes,
        projectLabel: this.forest.projectById.get(n.projectKey)?.label ?? '',
      })),
      ageHistogram: ages.map(({ label, sessions, bytes }) => ({ label, sessions, bytes })),
      items: this.provisional ? [] : this.items.map((it) => ({
        id: it.id,
        category: it.category,
        label: it.label,
        subtitle: it.subtitle,
        bytes: it.bytes,
        risk: it.risk,
        selectable: it.selectable,
        blockedReason: it.blockedReason,
        pathLabel: it.paths[0] ?? '',
        modifiedAt: it.modifiedAt,
      })),
      // A provisional view offers nothing to mark: an empty index keeps every mark path shut.
      ...this.selectionFields(compact),
      warnings: this.warnings,
      writers: this.inventory.writers,
      readOnly: false,
      ...(this.provisional ? { provisional: true } : {}),
    };
  }

  private selectionFields(compact: boolean): Pick<ScanSummary, 'selection' | 'selectionIndex'> {
    const nodes = this.provisional ? [] : this.forest.nodes;
    if (!compact) return { selection: nodes.filter((n) => n.s.selectable).map((n) => ({ id: n.s.itemId, projectId: n.projectKey, bytes: n.s.bytes })) };
    let count = 0;
    for (const n of nodes) if (n.s.selectable) count++;
    const b = new SelectionBuilder(count);
    for (const n of nodes) if (n.s.selectable) b.add(n.s.itemId, n.projectKey, n.s.bytes);
    return { selection: [], selectionIndex: b.build() };
  }

  // ---- sorting ----------------------------------------------------------

  private sortedFor(key: SortKey, reverse = false) {
    const name = reverse ? `${key}:reverse` : key;
    let s = this.sorted.get(name);
    if (s) return s;
    const cmp = reverse ? flip(sessionComparator(key)) : sessionComparator(key);
    const projects = [...this.forest.projects].sort(projectComparator(key, reverse));
    const top = this.forest.projects.map((p) => [...p.top].sort(p.virtual && key !== 'title' && key !== 'size' ? (reverse ? flip(byRecency) : byRecency) : cmp));
    const children = new Map<number, SessionNode[]>();
    for (const n of this.forest.nodes) if (n.children.length) children.set(n.idx, [...n.children].sort(cmp));
    const flat = [...this.forest.nodes].sort(cmp);
    s = { projects, top, children, flat };
    this.sorted.set(name, s);
    return s;
  }

  // ---- paging -----------------------------------------------------------

  page(req: PageRequest): PageResult {
    if (req.snapshotId !== this.id) throw new RequestError('stale snapshot');
    validatePage(req, this.knownProject);
    const view = this.view(req);
    const total = view.entries.length;
    if (req.offset > total) throw new RequestError(`page offset ${req.offset} is past the end (${total} rows)`);
    const rows: Row[] = [];
    const end = Math.min(total, req.offset + req.limit);
    for (let i = req.offset; i < end; i++) rows.push(this.row(view, i));
    return { snapshotId: this.id, total, offset: req.offset, rows, matched: view.matched, matchedBytes: view.matchedBytes };
  }

  /** Selectable, matching session item ids in a filtered scope (for "mark all"). */
  matchIds(filter: SessionFilter): { ids: string[]; bytes: number } {
    validateFilter(filter, this.knownProject);
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
    const hay = text ? (this.haystacks ??= this.forest.nodes.map((n) => `${n.s.title}\n${n.s.cwd ?? ''}\n${n.s.id}`.toLowerCase())) : [];
    const now = this.scannedAt;
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
      default:
        break;
    }
    const timed = lo !== -Infinity || hi !== Infinity;
    return (n) => {
      const s = n.s;
      if (text && !hay[n.idx]!.includes(text)) return false;
      if (timed) {
        const t = s.updatedAt ?? 0;
        if (t < lo || t >= hi) return false;
      }
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
    const n = p ? undefined : this.session(id);
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
    const ins = { entries: [] as number[], depth: [] as number[], expanded: [] as number[], expandable: [] as number[] };
    if (open) {
      const sorted = this.sortedFor(req.sort, req.reverse);
      const kids = p ? sorted.top[p.idx]! : sorted.children.get(n!.idx) ?? [];
      const stack: [SessionNode, number][] = [];
      for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k]!, v.depth[i]! + 1]);
      while (stack.length) {
        const [cur, dep] = stack.pop()!;
        const ck = sorted.children.get(cur.idx);
        const has = Boolean(ck?.length);
        const o = has && openBy(cur.s.itemId, false);
        ins.entries.push(cur.idx);
        ins.depth.push(dep > 255 ? 255 : dep);
        ins.expanded.push(o ? 1 : 0);
        ins.expandable.push(has ? 1 : 0);
        if (o) for (let k = ck!.length - 1; k >= 0; k--) stack.push([ck![k]!, dep + 1]);
      }
    }
    const len = v.entries.length - (end - i - 1) + ins.entries.length;
    const splice = <T extends Int32Array | Uint8Array>(src: T, add: number[], make: (n: number) => T): T => {
      const out = make(len);
      out.set(src.subarray(0, i + 1), 0);
      out.set(add, i + 1);
      out.set(src.subarray(end), i + 1 + add.length);
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
    const out: number[] = [];
    let bytes = 0;
    for (const n of this.sortedFor(req.sort, req.reverse).flat) {
      if (pid !== undefined && n.projectKey !== pid) continue;
      if (!match(n)) continue;
      out.push(n.idx);
      bytes += n.s.bytes;
    }
    const len = out.length;
    return { entries: Int32Array.from(out), depth: new Uint8Array(len), context: new Uint8Array(len), expanded: new Uint8Array(len), expandable: new Uint8Array(len), matched: len, matchedBytes: bytes };
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
      projectMatched = { count, bytes };
      for (const n of nodes) {
        if (!match(n)) continue;
        if (pid === undefined || n.projectKey === pid) {
          const p = this.forest.projectById.get(n.projectKey);
          if (p) {
            count[p.idx]!++;
            bytes[p.idx]! += n.s.bytes;
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
    const sorted = this.sortedFor(req.sort, req.reverse);
    const entries: number[] = [];
    const depth: number[] = [];
    const context: number[] = [];
    const expanded: number[] = [];
    const expandable: number[] = [];
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
        entries.push(cur.idx);
        depth.push(dep > 255 ? 255 : dep);
        context.push(isCtx ? 1 : 0);
        expanded.push(open ? 1 : 0);
        expandable.push(hasKids ? 1 : 0);
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
      entries.push(-(p.idx + 1));
      depth.push(0);
      context.push(0);
      expanded.push(open ? 1 : 0);
      expandable.push(1);
      if (open) for (const n of top) visit(n, 1);
    }
    return {
      entries: Int32Array.from(entries),
      depth: Uint8Array.from(depth),
      context: Uint8Array.from(context),
      expanded: Uint8Array.from(expanded),
      expandable: Uint8Array.from(expandable),
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
        source: p.virtual ? '' : p.roots[0] ?? '',
        state: '',
        updatedAt: p.latest || null,
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
      selectable: s.selectable && !ctx && !this.provisional,
      blockedReason: this.provisional ? PROVISIONAL_REASON : ctx ? 'Ancestor of a filtered result' : s.blockedReason,
      named: s.named,
    };
  }

  // ---- detail -----------------------------------------------------------

  detail(id: string): Detail {
    const n = this.session(id);
    if (n) return this.sessionDetail(n);
    const p = this.forest.projectById.get(id);
    if (p) {
      return {
        id,
        kind: 'project',
        title: p.label,
        sections: [
          {
            heading: 'Project',
            fields: [
              { label: 'Sessions', value: String(p.sessions) },
              { label: 'Size', value: formatBytes(p.bytes) },
              { label: 'Updated', value: formatDate(p.latest || null) },
              { label: 'Roots', value: p.roots.length ? p.roots.join(', ') : p.virtual ? 'Sessions without a recognized project' : '—' },
              { label: 'Project id', value: p.id === NO_PROJECT_ID ? '—' : p.id },
            ],
          },
        ],
        paths: [],
        selectable: false,
      };
    }
    const it = this.itemById.get(id);
    if (!it) throw new RequestError(`unknown item id "${id}" in this snapshot`);
    return {
      id,
      kind: 'item',
      title: it.label,
      sections: [
        {
          heading: 'Facts',
          fields: [
            { label: 'Category', value: it.category },
            { label: 'Size', value: formatBytes(it.bytes) },
            { label: 'Risk', value: it.risk },
            { label: 'Recoverable', value: it.recoverable ? 'yes (backup-able)' : 'no' },
            { label: 'Identifier', value: it.id },
            { label: 'Modified', value: formatDate(it.modifiedAt ?? null) },
            ...(it.subtitle ? [{ label: 'About', value: it.subtitle }] : []),
          ],
        },
        ...this.sweepSection(this.inventory.sweep ? itemSweepText(this.inventory.sweep, it.id) : null),
      ],
      paths: it.paths,
      blockedReason: it.blockedReason,
      selectable: it.selectable,
    };
  }

  /** "Claude deletes this transcript on …": what the agent itself will do, read from its settings. */
  private sweepSection(text: string | null): Detail['sections'] {
    return text ? [{ heading: "Agent's own cleanup", fields: [{ label: 'By itself', value: text }] }] : [];
  }

  private sessionDetail(n: SessionNode): Detail {
    const s = n.s;
    const project = this.forest.projectById.get(n.projectKey);
    const parent = n.parent;
    const meta = Object.entries(s.metadata)
      .filter(([k]) => k in META_LABELS)
      .map(([k, v]) => ({ label: META_LABELS[k]!, value: typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v) }));
    return {
      id: s.itemId,
      kind: 'session',
      title: s.title,
      sections: [
        {
          heading: 'Facts',
          fields: [
            { label: 'Size', value: formatBytes(s.bytes) },
            { label: 'Risk', value: 'high' },
            { label: 'Recoverable', value: s.recoverable ? 'yes (backup-able)' : 'no' },
            { label: 'Identifier', value: s.id },
            { label: 'Modified', value: formatDate(s.updatedAt) },
          ],
        },
        {
          heading: 'Session',
          fields: [
            { label: 'Project', value: project?.label ?? '—' },
            { label: 'Source', value: s.source === 'vscode' ? 'Desktop / IDE' : s.source },
            { label: 'Status', value: s.state === 'archived' ? 'Archived' : 'Not loaded' },
            { label: 'Created', value: formatDate(s.createdAt) },
            { label: 'Updated', value: formatDate(s.updatedAt) },
            { label: 'Parent', value: parent ? `${parent.s.title} (${parent.s.id})` : '—' },
            { label: 'Children', value: String(n.children.length) },
            { label: 'In tree below', value: String(countDescendants(n)) },
            { label: 'Deleted with it', value: s.deletionDescendantIds.length ? String(s.deletionDescendantIds.length) : 'nothing else (forks are kept)' },
            { label: 'Working dir', value: s.cwd ?? 'No working directory' },
            { label: 'Project root', value: project?.roots.join(', ') || '—' },
          ],
        },
        ...(meta.length ? [{ heading: 'Metadata', fields: meta }] : []),
        ...this.sweepSection(this.inventory.sweep ? sessionSweepText(this.inventory.sweep, s.updatedAt, this.scannedAt, s.source) : null),
      ],
      paths: s.paths,
      blockedReason: this.provisional ? PROVISIONAL_REASON : s.blockedReason,
      selectable: s.selectable && !this.provisional,
    };
  }
}

const META_LABELS: Record<string, string> = {
  pinned: 'Pinned',
  requiresAgentExit: 'Needs exit',
  source: 'Recorded as',
};

function byRecency(a: SessionNode, b: SessionNode): number {
  return (b.s.updatedAt ?? -1) - (a.s.updatedAt ?? -1) || (a.s.id < b.s.id ? -1 : 1);
}

function flip<T>(cmp: (a: T, b: T) => number): (a: T, b: T) => number {
  return (a, b) => cmp(b, a);
}

function sessionComparator(key: SortKey): (a: SessionNode, b: SessionNode) => number {
  if (key === 'size') return (a, b) => b.s.bytes - a.s.bytes || byRecency(a, b);
  if (key === 'title')
    return (a, b) => {
      const x = a.s.title.toLowerCase();
      const y = b.s.title.toLowerCase();
      return x < y ? -1 : x > y ? 1 : byRecency(a, b);
    };
  return byRecency;
}
