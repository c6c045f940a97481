// The tab bar's entries, derived from the one list of screens the app builds
// (frame.ts buildScreens): a screen added there gets its tab, its digit key
// and its short form here, with no list of tabs to keep in step.

import { t } from '../engine/i18n/index.js';
import type { Screen } from '../screens/screen.js';
import type { TabEntry } from '../widgets/tab-bar.js';

/** The digits 1–9 switch tabs: a tenth screen would have no key. */
const MAX_TABS = 9;

type TabSource = Pick<Screen, 'title' | 'shortTitle'>;

/** Tab n has the digit n, the screen's title (or `label`'s, e.g. a count) and its short form. */
export function tabEntries<S extends TabSource>(screens: readonly S[], label: (s: S) => string = (s) => s.title): TabEntry[] {
  if (screens.length > MAX_TABS) throw new RangeError(t('app.tooManyTabs', { screens: String(screens.length), max: String(MAX_TABS) }));
  return screens.map((s, i) => {
    const text = label(s);
    return { key: String(i + 1), label: text, short: s.shortTitle ?? text };
  });
}
