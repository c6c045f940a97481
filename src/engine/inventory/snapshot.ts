// One scan's immutable result: the forest of its sessions and its items,
// with the lookups, the summary, the pages and the detail text over them.

import { randomUUID } from 'node:crypto';
import { buildForest, type Forest, type SessionNode } from './forest.js';
import { SnapshotIndex } from './snapshot-index.js';
import { SnapshotOrder } from './snapshot-order.js';
import { SnapshotPages } from './snapshot-pages.js';
import { snapshotSummary } from './snapshot-summary.js';
import { detailText } from './detail-text.js';
import type { AgentKind, Detail, Installation, Inventory, Item, PageRequest, PageResult, ScanSummary, SessionFilter } from '../core/model.js';

export { PROVISIONAL_REASON } from './detail-text.js';

export class Snapshot {
  readonly id = randomUUID();
  readonly forest: Forest;
  readonly items: Item[];
  private readonly index: SnapshotIndex;
  private readonly order: SnapshotOrder;
  private readonly pages: SnapshotPages;

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
    this.index = new SnapshotIndex(this.forest, this.items);
    this.order = new SnapshotOrder(this.forest);
    this.pages = new SnapshotPages(this, this.forest, this.index, this.order);
  }

  get warnings() {
    return [...this.inventory.warnings, ...this.forest.warnings];
  }

  knownProject = (id: string): boolean => this.index.knownProject(id);

  session(itemId: string): SessionNode | undefined {
    return this.index.session(itemId);
  }

  item(itemId: string): Item | undefined {
    return this.index.item(itemId);
  }

  /** `compact`: the selection index as typed arrays (`selectionIndex`), `selection` left empty. */
  summary(compact = false): ScanSummary {
    return snapshotSummary(this, this.order, compact);
  }

  page(req: PageRequest): PageResult {
    return this.pages.page(req);
  }

  /** Selectable, matching session item ids in a filtered scope (for "mark all"). */
  matchIds(filter: SessionFilter): { ids: string[]; bytes: number } {
    return this.pages.matchIds(filter);
  }

  detail(id: string): Detail {
    return detailText(this, this.index, id);
  }
}
