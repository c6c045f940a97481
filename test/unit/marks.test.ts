// Marks key on the selection index in either form: the entries an in-process
// engine returns, or the compact typed arrays the worker sends.

import { describe, expect, it } from 'vitest';
import type { ScanSummary, SelectionEntry } from '../../src/engine/core/model.js';
import { compactSelection, selectionId } from '../../src/engine/core/selection.js';
import { Marks } from '../../src/screens/marks.js';

const entries: SelectionEntry[] = [
  { id: 'session:a', projectId: 'p1', bytes: 100 },
  { id: 'session:bb', projectId: 'p2', bytes: 2000 },
  { id: 'session:ccc-é', projectId: 'p1', bytes: 30 },
];
const items = [
  { id: 'cache:x', category: 'cache', label: 'x', bytes: 7, risk: 'safe', selectable: true, pathLabel: '' },
  { id: 'protected:y', category: 'protected', label: 'y', bytes: 9, risk: 'protected', selectable: false, pathLabel: '' },
] as ScanSummary['items'];

function summary(compact: boolean, sel = entries): ScanSummary {
  return { items, ...(compact ? { selection: [], selectionIndex: compactSelection(sel) } : { selection: sel }) } as unknown as ScanSummary;
}

describe('compact selection index', () => {
  it('round-trips every entry', () => {
    const c = compactSelection(entries);
    expect(entries.map((_, i) => ({ id: selectionId(c, i), projectId: c.projectIds[c.project[i]!], bytes: c.bytes[i] }))).toEqual(entries);
    expect(compactSelection([]).ends.length).toBe(0);
  });

  for (const compact of [false, true]) {
    it(`marks sessions and items by id (${compact ? 'compact' : 'entries'})`, () => {
      const m = new Marks();
      m.rebase(summary(compact));
      expect(m.selectable('session:bb')).toBe(true);
      expect(m.selectable('protected:y')).toBe(false);
      expect(m.add('session:ccc-é')).toBe(true);
      expect(m.add('cache:x')).toBe(true);
      expect(m.add('session:zz')).toBe(false);
      expect(m.bytes).toBe(37);
      expect(m.projectCounts('p1')).toEqual({ marked: 1, selectable: 2 });
      expect(m.projectCounts('p2')).toEqual({ marked: 0, selectable: 1 });
      expect(m.addAll(['session:a', 'session:bb'])).toBe(2);
      expect(m.projectCounts('p1')).toEqual({ marked: 2, selectable: 2 });
      m.delete('session:a');
      expect(m.count).toBe(3);
      expect(m.bytes).toBe(2037);
      // A rescan without session:bb keeps the other marks and their counts.
      m.rebase(summary(compact, [entries[0]!, entries[2]!]));
      expect(m.list().sort()).toEqual(['cache:x', 'session:ccc-é']);
      expect(m.projectCounts('p1')).toEqual({ marked: 1, selectable: 2 });
      expect(m.projectCounts('p2')).toEqual({ marked: 0, selectable: 0 });
      m.rebase(null);
      expect(m.count).toBe(0);
    });
  }
});
