// The tabs come from the app's one list of screens (frame.ts buildScreens):
// each screen gets the digit of its place, its title and its short form, and
// the app's tab keys are those digits. A seventh screen gets the key 7 and a
// label that fits 80 columns; a tenth is refused in a sentence.

import { afterEach, describe, expect, it } from 'vitest';
import { appKeys, type AppActions } from '../../src/app/app-keys.js';
import { buildScreens } from '../../src/app/frame.js';
import { tabEntries } from '../../src/app/tabs.js';
import { displayWidth } from '../../src/engine/core/text.js';
import { setLanguage } from '../../src/engine/i18n/index.js';
import { dispatch } from '../../src/widgets/bindings.js';
import { fitTabEntries, TabBar, type TabEntry } from '../../src/widgets/tab-bar.js';
import { makeTheme } from '../../src/widgets/theme.js';
import { appContext, closeHeadless, headless } from '../helpers/key-tables.js';

afterEach(() => {
  closeHeadless();
  setLanguage('en');
});

/** The app's screens as the app builds them, plus `more` (a title and a short form each). */
function screens(...more: { title: string; shortTitle?: string }[]): { title: string; shortTitle?: string }[] {
  return [...buildScreens(appContext(headless())), ...more];
}

const cells = (tabs: readonly TabEntry[], labels: readonly string[]): number => labels.reduce((w, l, i) => w + displayWidth(` ${tabs[i]!.key} ${l} `), 0);

/** The tab bar's line at `width` columns. */
function painted(tabs: readonly TabEntry[], width: number): string {
  const s = headless();
  (s as unknown as { program: { cols: number } }).program.cols = width;
  const bar = new TabBar(s, makeTheme({}));
  bar.box.width = width;
  bar.paint(tabs, 0, '');
  s.render();
  return (s as unknown as { lines: [number, string][][] }).lines[0]!.slice(0, width)
    .map((c) => c[1])
    .join('')
    .replace(/\u0003/g, '') // blessed's filler after a wide character
    .trimEnd();
}

describe('the tabs are the screens', () => {
  it('the six screens: digits 1–6, their titles, Logs & caches short as Logs; the app binds exactly those digits', () => {
    const tabs = tabEntries(screens());
    expect(tabs).toEqual([
      { key: '1', label: 'Overview', short: 'Overview' },
      { key: '2', label: 'Sessions', short: 'Sessions' },
      { key: '3', label: 'Memory', short: 'Memory' },
      { key: '4', label: 'Logs & caches', short: 'Logs' },
      { key: '5', label: 'Backups', short: 'Backups' },
      { key: '6', label: 'Settings', short: 'Settings' },
    ]);
    const global = appKeys(
      {} as AppActions,
      tabs.map((e) => e.key),
    ).global;
    const tab = global.bindings.find((b) => b.keys.includes('1'))!;
    expect(tab.keys).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(tab.label).toBe('1–6');
  });

  it('a label function replaces the title (the Sessions count) and keeps it as the short form unless the screen names one', () => {
    const tabs = tabEntries(screens(), (s) => (s.title === 'Sessions' ? 'Sessions (1,234)' : s.title));
    expect(tabs[1]).toEqual({ key: '2', label: 'Sessions (1,234)', short: 'Sessions (1,234)' });
    // Six tabs with four-digit counts overflow 80 columns by one: the short form, not a cut label.
    expect(fitTabEntries(tabs, 1, 80)).toEqual(['Overview', 'Sessions (1,234)', 'Memory', 'Logs', 'Backups', 'Settings']);
  });

  it('whole labels stay whole while they fit (80 columns, three-digit counts)', () => {
    const tabs = tabEntries(screens(), (s) => (s.title === 'Sessions' ? 'Sessions (431)' : s.title));
    expect(fitTabEntries(tabs, 0, 80)).toEqual(tabs.map((e) => e.label));
    expect(painted(tabs, 80)).toBe(' 1 Overview  2 Sessions (431)  3 Memory  4 Logs & caches  5 Backups  6 Settings');
  });

  it('a seventh screen gets the key 7, the app binds it, and its label fits 80 columns in both languages', () => {
    for (const [lang, title, shortTitle] of [
      ['en', 'All agents', 'All'],
      ['zh', '全部智能体', '全部'],
    ] as const) {
      setLanguage(lang);
      const tabs = tabEntries(screens({ title, shortTitle }), (s) => (s.title === 'Sessions' || s.title === '会话' ? `${s.title} (1,234)` : s.title));
      expect(tabs[6]).toEqual({ key: '7', label: title, short: shortTitle });
      const fitted = fitTabEntries(tabs, 6, 80);
      expect(cells(tabs, fitted), lang).toBeLessThanOrEqual(81);
      // Whole labels or their short forms: nothing cut to an ellipsis, no tab reduced to its digit.
      fitted.forEach((l, i) => expect([tabs[i]!.label, tabs[i]!.short], `${lang} ${l}`).toContain(l));
      expect(painted(tabs, 80), lang).toContain(` 7 ${fitted[6]}`);

      let shown = -1;
      const keys = appKeys(
        { showTab: (i: number) => (shown = i) } as unknown as AppActions,
        tabs.map((e) => e.key),
      );
      expect(keys.global.bindings.find((b) => b.keys.includes('7'))!.label).toBe('1–7');
      expect(dispatch([keys.global], '7', { name: '7' })).toEqual({ kind: 'ran' });
      expect(shown).toBe(6);
    }
  });

  it('nine screens are the most the digits can switch; a tenth is refused in a sentence', () => {
    const extra = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Extra ${i + 1}` }));
    expect(tabEntries(screens(...extra(3))).at(-1)!.key).toBe('9');
    expect(() => tabEntries(screens(...extra(4)))).toThrow('The tab bar has the keys 1–9: 10 screens are more than it can switch to.');
  });
});
