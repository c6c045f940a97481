// Key bindings as data: each focused widget (a screen's list, its detail
// pane, a dialog, the review) answers with one table of bindings. The same
// table drives dispatch, the footer hints and the help overlay, so what the
// footer promises is what a key does, and help lists every key there is.

import { t } from '../engine/i18n/index.js';

/** blessed's key event, the parts the bindings read. */
export interface KeyEvent {
  name?: string;
  full?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

export interface Binding {
  /**
   * The keys as keyId() names them: a printable character ('x', 'G', '?'),
   * or blessed's full name of the key ('up', 'pagedown', 'enter', 'escape',
   * 'space', 'tab', 'S-tab', 'C-l').
   */
  keys: readonly string[];
  /** How help and the footer write the keys ('↑↓ j k'); defaults to keyLabel() of each. */
  label?: string;
  /** What the key does, for help. */
  does: string;
  /** Shown in the footer with this short text; absent: listed in help only. */
  footer?: string;
  /** Why the key does nothing right now; undefined when it works. */
  disabled?(): string | undefined;
  run(ch: string | undefined, key: KeyEvent): void;
}

export interface KeyContext {
  /** Names the focused widget in help and at the start of the footer ('Sessions', 'Details', 'Review'). */
  title: string;
  bindings: Binding[];
  /** Printable keys no binding claims (a typed confirmation); `does` is listed in help. */
  text?: { does: string; run(ch: string): void };
  /**
   * The context owns the keyboard: keys it does not bind go nowhere else
   * (dialogs), except the keys that work everywhere (Ctrl-C, Ctrl-L, Ctrl-Z).
   */
  modal?: boolean;
}

// Key names stay as the keycaps print them in every language (Enter, Esc, PgDn): a Chinese keyboard says Enter too.
const NAMED: Record<string, string> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  enter: 'Enter',
  escape: 'Esc',
  space: 'Space',
  tab: 'Tab',
  'S-tab': 'Shift-Tab',
  backspace: 'Backspace',
  delete: 'Del',
};

/** One name per key: what a Binding lists in `keys`. */
export function keyId(ch: string | undefined, key: KeyEvent): string {
  const name = key.name;
  if (key.ctrl || key.meta) return key.full ?? `${key.ctrl ? 'C-' : 'M-'}${name ?? ch ?? ''}`;
  if (ch === ' ' || name === 'space') return 'space';
  if (ch && [...ch].length === 1 && ch > ' ' && ch !== '\x7f') return ch;
  if (name === 'tab' && key.shift) return 'S-tab';
  return key.full ?? name ?? ch ?? '';
}

/**
 * The keys a user typed, from one blessed event. blessed reads an Esc followed
 * at once by another key ("Esc Esc", "Esc x" typed fast, or over a slow link
 * in one packet) as Alt+key; no table binds Alt, so it is the Esc and then the key.
 */
export function typedKeys(ch: string | undefined, key: KeyEvent): [string | undefined, KeyEvent][] {
  const seq = (key as { sequence?: string }).sequence;
  // An arrow after Esc ("\x1b\x1b[A") comes without the meta flag; a terminal's own Alt+arrow ("\x1b[1;3A") is left alone.
  const escFirst = typeof seq === 'string' && (seq.startsWith('\x1b\x1b') || (key.meta === true && seq.startsWith('\x1b') && [...seq].length === 2));
  if (!escFirst || key.ctrl || !key.name) return [[ch, key]];
  const rest = seq!.slice(1);
  const escKey: KeyEvent = { name: 'escape', full: 'escape' };
  if (key.name === 'escape')
    return [
      [undefined, escKey],
      [undefined, escKey],
    ];
  const restCh = [...rest].length === 1 ? rest : undefined;
  return [
    [undefined, escKey],
    [restCh, { name: key.name, full: key.shift && key.name.length > 1 ? `S-${key.name}` : key.name, shift: key.shift }],
  ];
}

/** How a key is written for people: ↑, PgDn, Ctrl-L. */
export function keyLabel(id: string): string {
  if (NAMED[id]) return NAMED[id]!;
  const m = /^([CM])-(.+)$/.exec(id);
  if (m) return `${m[1] === 'C' ? 'Ctrl' : 'Alt'}-${m[2]!.length === 1 ? m[2]!.toUpperCase() : m[2]}`;
  return id;
}

export function bindingLabel(b: Binding): string {
  return b.label ?? b.keys.map(keyLabel).join(' ');
}

function findBinding(ctx: KeyContext, id: string): Binding | undefined {
  return ctx.bindings.find((b) => b.keys.includes(id));
}

type DispatchResult = { kind: 'ran' } | { kind: 'disabled'; why: string; binding: Binding } | { kind: 'unbound' };

/** Runs the binding of this key in the first context that binds it (or takes it as text). */
export function dispatch(contexts: readonly KeyContext[], ch: string | undefined, key: KeyEvent): DispatchResult {
  const id = keyId(ch, key);
  for (const ctx of contexts) {
    const b = findBinding(ctx, id);
    if (b) {
      const why = b.disabled?.();
      if (why) return { kind: 'disabled', why, binding: b };
      b.run(ch, key);
      return { kind: 'ran' };
    }
    if (ctx.text && ch && [...ch].length === 1 && ch >= ' ' && ch !== '\x7f' && !key.ctrl && !key.meta) {
      ctx.text.run(ch);
      return { kind: 'ran' };
    }
  }
  return { kind: 'unbound' };
}

/** Footer hints: the enabled bindings that ask to be shown, in table order. */
export function footerHints(contexts: readonly KeyContext[]): [string, string][] {
  const out: [string, string][] = [];
  for (const ctx of contexts) for (const b of ctx.bindings) if (b.footer && !b.disabled?.()) out.push([bindingLabel(b).split(' ')[0]!, b.footer]);
  return out;
}

interface HelpRow {
  keys: string;
  does: string;
  disabled?: string;
}

interface HelpSection {
  title: string;
  rows: HelpRow[];
}

/** Help: every binding of every context, with why a disabled one does nothing now. */
export function helpSections(contexts: readonly KeyContext[]): HelpSection[] {
  return contexts.map((ctx) => ({
    title: ctx.title,
    rows: [
      ...ctx.bindings.map((b) => ({ keys: bindingLabel(b), does: b.does, disabled: b.disabled?.() })),
      ...(ctx.text ? [{ keys: t('help.letters'), does: ctx.text.does }] : []),
    ],
  }));
}

/** The keys bound more than once in one context (a table error; the test suite checks every table). */
export function duplicateKeys(ctx: KeyContext): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const b of ctx.bindings) for (const k of b.keys) (seen.has(k) ? dup : seen).add(k);
  return [...dup];
}
