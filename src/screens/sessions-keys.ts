// The Sessions screen's key tables as data: the list's and the detail
// pane's bindings over the screen's actions. The view's changes are the pure
// functions of sessions-state; everything else the screen does for a key is
// an action it lends this table.

import { t as tr } from '../engine/i18n/index.js';
import type { KeyContext } from '../widgets/bindings.js';
import { clearFilterLayer, expandAll, isFiltered, nextSort, nextState, nextUpdated, reversed, type SessionsView, treeOrList } from './sessions-state.js';

/** What the keys ask of the screen. */
export interface SessionsActions {
  view(): SessionsView;
  /** Replaces the view and asks for its rows; `resetCursor` puts the cursor back on the first row. */
  setView(v: SessionsView, resetCursor: boolean): void;
  cursor(): number;
  /** The list's height, a page. */
  pageRows(): number;
  totalRows(): number;
  moveTo(i: number): void;
  expand(force: boolean | undefined): void;
  collapseOrParent(): void;
  markRow(): void;
  markScope(on: boolean): void;
  archive(): void;
  openMenu(): void;
  openSearch(): void;
  openWarnings(): void;
  loadPreview(explain: boolean): void;
  copy(kind: 'resume' | 'reference'): void;
  scrollPane(n: number): void;
  focusList(): void;
  hasSweep(): boolean;
  hasWarnings(): boolean;
  /** Why marking is refused (read-only), if it is. */
  readOnlyWhy(): string | undefined;
  /** Why archive is not offered for this agent, if so. */
  archiveWhyNot(): string | undefined;
}

export function sessionsKeys(a: SessionsActions): { list: KeyContext; detail: KeyContext } {
  // c and y: the cursor's session, in the list and in its detail pane alike.
  const copy = (): KeyContext['bindings'] => [
    { keys: ['c'], does: tr('copy.resumeKey'), footer: tr('copy.footer'), run: () => a.copy('resume') },
    { keys: ['y'], does: tr('copy.referenceKey'), run: () => a.copy('reference') },
  ];
  const change =
    (f: (v: SessionsView) => SessionsView, resetCursor = true) =>
    () =>
      a.setView(f(a.view()), resetCursor);
  const detail: KeyContext = {
    title: tr('sessions.details'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.scrollUp'), footer: tr('footer.scroll'), run: () => a.scrollPane(-1) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('key.scrollDown'), run: () => a.scrollPane(1) },
      { keys: ['pageup'], does: tr('key.scrollPageUp'), run: () => a.scrollPane(-10) },
      { keys: ['pagedown'], does: tr('key.scrollPageDown'), run: () => a.scrollPane(10) },
      // The pane itself says "p: load a bounded, read-only preview"; it works where it is read.
      { keys: ['p'], does: tr('sessions.previewKey'), footer: tr('footer.preview'), run: () => a.loadPreview(false) },
      { keys: ['b'], does: tr('explain.key'), footer: tr('explain.footer'), run: () => a.loadPreview(true) },
      ...copy(),
      { keys: ['escape'], does: tr('sessions.backToList'), footer: tr('sessions.backToList'), run: () => a.focusList() },
    ],
  };
  const list: KeyContext = {
    title: tr('tab.sessions'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.moveUp'), run: () => a.moveTo(a.cursor() - 1) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('key.moveDown'), run: () => a.moveTo(a.cursor() + 1) },
      { keys: ['pageup'], does: tr('key.pageUp'), run: () => a.moveTo(a.cursor() - a.pageRows()) },
      { keys: ['pagedown'], does: tr('key.pageDown'), run: () => a.moveTo(a.cursor() + a.pageRows()) },
      { keys: ['g', 'home'], does: tr('key.top'), run: () => a.moveTo(0) },
      { keys: ['G', 'end'], does: tr('key.bottom'), run: () => a.moveTo(a.totalRows() - 1) },
      { keys: ['enter'], does: tr('sessions.expandCollapse'), footer: tr('sessions.expand'), run: () => a.expand(undefined) },
      { keys: ['right', 'l'], label: '→ l', does: tr('sessions.expand'), run: () => a.expand(true) },
      { keys: ['left', 'h'], label: '← h', does: tr('sessions.collapse'), run: () => a.collapseOrParent() },
      { keys: ['space'], does: tr('sessions.markRow'), footer: tr('footer.mark'), disabled: () => a.readOnlyWhy(), run: () => a.markRow() },
      { keys: ['a'], does: tr('sessions.markAll'), footer: tr('sessions.footer.markAll'), disabled: () => a.readOnlyWhy(), run: () => a.markScope(true) },
      { keys: ['u'], does: tr('sessions.clearMarks'), run: () => a.markScope(false) },
      {
        keys: ['A'],
        does: tr('sessions.key.archive'),
        footer: tr('sessions.footer.archive'),
        disabled: () => a.readOnlyWhy() ?? a.archiveWhyNot(),
        run: () => a.archive(),
      },
      { keys: ['R'], does: tr('sessions.rules'), footer: tr('sessions.footer.rules'), disabled: () => a.readOnlyWhy(), run: () => a.openMenu() },
      { keys: ['/'], does: tr('sessions.filterKey'), footer: tr('sessions.footer.filter'), run: () => a.openSearch() },
      { keys: ['f'], does: tr('sessions.updatedKey'), footer: tr('sessions.footer.updated'), run: change((v) => nextUpdated(v, a.hasSweep())) },
      { keys: ['v'], does: tr('sessions.stateKey'), run: change(nextState) },
      { keys: ['s'], does: tr('sessions.sortKey'), footer: tr('sessions.footer.sort'), run: change(nextSort) },
      { keys: ['S'], does: tr('sessions.reverseKey'), run: change(reversed) },
      {
        keys: ['w'],
        does: tr('key.listWarnings'),
        disabled: () => (a.hasWarnings() ? undefined : tr('common.noWarningsWhy')),
        run: () => a.openWarnings(),
      },
      { keys: ['t'], does: tr('sessions.treeKey'), footer: tr('sessions.footer.tree'), run: change(treeOrList) },
      { keys: ['e'], does: tr('sessions.expandAllKey'), run: change(expandAll, false) },
      { keys: ['p'], does: tr('sessions.previewKey'), footer: tr('footer.preview'), run: () => a.loadPreview(false) },
      { keys: ['b'], does: tr('explain.key'), run: () => a.loadPreview(true) },
      ...copy(),
      {
        keys: ['escape'],
        does: tr('sessions.clearFilter'),
        disabled: () => (isFiltered(a.view().filter) ? undefined : tr('sessions.noFilter')),
        run: change(clearFilterLayer),
      },
    ],
  };
  return { list, detail };
}
