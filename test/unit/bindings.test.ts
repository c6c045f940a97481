// Key bindings as data: every table the app dispatches on (each screen's
// focused widgets, the app's own, every dialog) lists each key once, shows
// every binding in help and nothing in the footer that help does not list;
// blessed's key events map to the names the tables use; a screen's table
// never shadows a key of the app's (the Backups `r` that was both restore
// and rescan).

import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage, t } from '../../src/engine/i18n/index.js';
import { ItemsScreen } from '../../src/screens/items.js';
import { bindingLabel, dispatch, duplicateKeys, footerHints, helpSections, keyId, typedKeys } from '../../src/widgets/bindings.js';
import type { KeyEvent } from '../../src/widgets/text-input.js';
import { appContext, closeHeadless, everyContext, headless } from '../helpers/key-tables.js';

afterEach(closeHeadless);

describe('key tables', () => {
  it('bind no key twice in one context', () => {
    const all = everyContext();
    expect(Object.keys(all).length).toBeGreaterThan(12);
    for (const [name, ctx] of Object.entries(all)) expect({ name, dup: duplicateKeys(ctx) }).toEqual({ name, dup: [] });
  });

  it('list every binding in help, and show in the footer only what help lists', () => {
    for (const [name, ctx] of Object.entries(everyContext())) {
      const [section] = helpSections([ctx]);
      expect(section!.title).toBe(ctx.title);
      for (const b of ctx.bindings)
        expect({ name, help: section!.rows.some((r) => r.keys === bindingLabel(b) && r.does === b.does) }).toEqual({ name, help: true });
      for (const [keys, does] of footerHints([ctx]))
        expect({ name, keys, found: ctx.bindings.some((b) => bindingLabel(b).startsWith(keys) && b.footer === does) }).toEqual({ name, keys, found: true });
      if (ctx.text) expect(section!.rows.some((r) => r.does === ctx.text!.does)).toBe(true);
    }
  });

  it('bind, in the Sessions detail pane, the key the pane tells the user to press', () => {
    const pane = everyContext()['screen Sessions, second focus']!;
    for (const lang of ['en', 'zh'] as const) {
      setLanguage(lang);
      const key = /^(\S)[:：]/.exec(t('detail.previewHint'))?.[1];
      expect(key).toBeDefined();
      expect(pane.bindings.some((b) => b.keys.includes(key!))).toBe(true);
    }
    setLanguage('en');
  });

  it('never let a screen take a key the app binds everywhere', () => {
    const all = everyContext();
    const appKeyIds = new Set([...all.global!.bindings, ...all.always!.bindings].flatMap((b) => b.keys));
    for (const [name, ctx] of Object.entries(all)) {
      if (!name.startsWith('screen ')) continue;
      const shadowed = ctx.bindings.flatMap((b) => b.keys).filter((k) => appKeyIds.has(k));
      expect({ name, shadowed }).toEqual({ name, shadowed: [] });
    }
  });

  it('give a disabled key its reason, in help and on dispatch, without running it', () => {
    const s = headless();
    const items = new ItemsScreen(appContext(s, true), 'Memory', ['memory'], () => '');
    const ctx = items.keyContext();
    const [section] = helpSections([ctx]);
    expect(section!.rows.find((r) => r.keys === 'Space')?.disabled).toMatch(/read-only/);
    expect(footerHints([ctx]).map(([k]) => k)).not.toContain('Space');
    const r = dispatch([ctx], ' ', { name: 'space', full: 'space' });
    expect(r.kind).toBe('disabled');
  });
});

describe('keyId', () => {
  /** The (ch, key) pairs a blessed screen reports for these bytes (its program parses them). */
  async function parse(bytes: string): Promise<[string | undefined, KeyEvent][]> {
    const s = headless();
    const out: [string | undefined, KeyEvent][] = [];
    s.on('keypress', (ch: string | undefined, key: KeyEvent | undefined) => out.push([ch, key ?? {}]));
    s.program.input.emit('data', Buffer.from(bytes));
    await new Promise((r) => setImmediate(r));
    closeHeadless();
    return out;
  }

  it('names keys as the tables do', async () => {
    const cases: [string, string][] = [
      ['x', 'x'],
      ['G', 'G'],
      ['?', '?'],
      [' ', 'space'],
      ['\x1b[A', 'up'],
      ['\x1b[6~', 'pagedown'],
      ['\t', 'tab'],
      ['\x1b[Z', 'S-tab'],
      ['\x7f', 'backspace'],
      ['\x0c', 'C-l'],
      ['\x1a', 'C-z'],
      ['\x03', 'C-c'],
      ['\x15', 'C-u'],
      ['é', 'é'],
    ];
    for (const [bytes, id] of cases) {
      const events = (await parse(bytes)).filter(([, k]) => k.name !== 'return');
      expect({ bytes, ids: events.map(([ch, k]) => keyId(ch, k)) }).toEqual({ bytes, ids: [id] });
    }
    // Esc and the next key in one burst (typed fast, or one packet over SSH) are both keys, never an Alt chord no table binds.
    const bursts: [string, string[]][] = [
      ['\x1b\x1b', ['escape', 'escape']],
      ['\x1bx', ['escape', 'x']],
      ['\x1bG', ['escape', 'G']],
      ['\x1b\x1b[A', ['escape', 'up']],
      ['\x1b[1;3A', ['M-up']],
    ];
    for (const [bytes, ids] of bursts) {
      const typed = (await parse(bytes)).flatMap(([ch, k]) => typedKeys(ch, k));
      expect({ bytes, ids: typed.map(([ch, k]) => keyId(ch, k)) }).toEqual({ bytes, ids });
    }
    // blessed reports Enter twice, as "enter" and as "return"; the app acts on "enter" alone.
    const enter = (await parse('\r')).map(([ch, k]) => keyId(ch, k));
    expect(enter).toEqual(['enter', 'return']);
  });
});
