// One listed-but-never-touched entry of an agent's home (credentials,
// configuration, database files, anything unrecognized): sized without
// following links, never selectable, with the reason shown.

import { allocatedBytes, lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Item, ScanWarning } from '../../engine/core/model.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { cleanText } from '../../engine/core/text.js';

interface ReadOnlyEntry {
  id: string;
  label: string;
  path: string;
  subtitle: string;
  blockedReason: string;
  metadata: Item['metadata'];
}

/** Collects read-only items, each path at most once; a symbolic link is listed at 0 bytes with a warning. */
export class ReadOnlyItems {
  readonly items: Item[] = [];
  private listed = new Set<string>();

  constructor(
    private agentName: string,
    private warnings: ScanWarning[],
  ) {}

  add(e: ReadOnlyEntry): void {
    if (this.listed.has(e.path)) return;
    const st = lstatSyncOrNull(e.path);
    if (!st) return;
    this.listed.add(e.path);
    const link = st.isSymbolicLink();
    if (link) this.warnings.push({ path: e.path, reason: `${this.agentName} entry ${e.label} is a symbolic link; not followed.` });
    const bytes = link ? 0 : st.isDirectory() ? walkOwned([e.path], { uid: -1, maxEntries: 200_000 }).bytes : allocatedBytes(st);
    this.items.push({
      id: e.id,
      category: 'protected',
      label: cleanText(e.label, 200),
      subtitle: e.subtitle,
      paths: [e.path],
      bytes,
      modifiedAt: st.mtimeMs,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: e.blockedReason,
      metadata: e.metadata,
    });
  }

  /**
   * An entry of which a part was carved out into a cleanable item: only
   * `kept` (the paths inside it that stay) is listed, as one read-only item.
   */
  addKept(e: ReadOnlyEntry, kept: readonly string[]): void {
    if (this.listed.has(e.path) || !kept.length) return;
    this.listed.add(e.path);
    const tree = walkOwned([...kept], { uid: -1, maxEntries: 200_000 });
    this.items.push({
      id: e.id,
      category: 'protected',
      label: cleanText(e.label, 200),
      subtitle: e.subtitle,
      paths: [...kept],
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: e.blockedReason,
      metadata: e.metadata,
    });
  }
}
