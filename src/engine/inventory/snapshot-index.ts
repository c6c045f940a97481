// Finding a session node or an item of one snapshot by its item id.

import type { Forest, SessionNode } from './forest.js';
import type { Item } from '../core/model.js';

export class SnapshotIndex {
  private readonly itemById = new Map<string, Item>();
  /**
   * Sessions whose item id is not `session:<id>` of the node the forest keys
   * by that id (none for today's adapters): the rest are found through
   * forest.nodeById, without a second 100k-entry map.
   */
  private readonly otherItemIds = new Map<string, SessionNode>();

  constructor(
    private readonly forest: Forest,
    items: readonly Item[],
  ) {
    for (const it of items) this.itemById.set(it.id, it);
    for (const n of forest.nodes) if (!this.byOwnId(n.s.itemId, n)) this.otherItemIds.set(n.s.itemId, n);
  }

  knownProject = (id: string): boolean => this.forest.projectById.has(id);

  session(itemId: string): SessionNode | undefined {
    // As one map over every node would answer: the later node wins an item id both paths know.
    const direct = this.byOwnId(itemId);
    const other = this.otherItemIds.get(itemId);
    return direct && other ? (direct.idx > other.idx ? direct : other) : (direct ?? other);
  }

  item(itemId: string): Item | undefined {
    return this.itemById.get(itemId);
  }

  /** The node keyed by the id inside `session:<id>`, when its item id is exactly that (and it is `want`, if given). */
  private byOwnId(itemId: string, want?: SessionNode): SessionNode | undefined {
    if (!itemId.startsWith('session:')) return undefined;
    const n = this.forest.nodeById.get(itemId.slice(8));
    return n && n.s.itemId === itemId && (want === undefined || n === want) ? n : undefined;
  }
}
