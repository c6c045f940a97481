// Message catalogs and the current language. Pure: no fs, no process state
// beyond one module-level language, so the UI, the engine and the CLI all
// import it.
//
// Why a module-level language is safe: a process shows one language for its
// whole life. The entry (cli, worker) resolves it once from --lang, the
// settings and the locale, and sets it before the first frame is drawn or the
// first line printed; nothing renders before that, so no caller ever sees the
// language change under it. Tests that switch languages set it per test.

import { en, type Catalog, type MessageKey, type Plural } from './en.js';
import { zh } from './zh.js';

export type { MessageKey } from './en.js';
export { resolveLanguage, languageFromLocale, parseLanguage, LANGUAGES, LANGUAGE_ENV, LANGUAGE_NAMES, type Language, type LanguageSetting } from './locale.js';
import type { Language } from './locale.js';

export const CATALOGS: Record<Language, Catalog> = { en, zh };

let current: Language = 'en';

export function setLanguage(lang: Language): void {
  current = lang;
}

export function getLanguage(): Language {
  return current;
}

export type Params = Record<string, string | number>;

/** 12,345 — by hand: toLocaleString goes through Intl and costs ~0.5 ms a call on every repaint. */
export function groupDigits(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const s = String(Math.trunc(Math.abs(n)));
  return (n < 0 ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** English has one/other; Chinese has no plural forms (every count takes the `other` text). */
function pick(msg: string | Plural, lang: Language, count: number | undefined): string {
  if (typeof msg === 'string') return msg;
  if (lang === 'en' && count === 1) return msg.one ?? msg.other;
  return msg.other;
}

/**
 * The message `key` in the current language, `{name}` placeholders filled
 * from `params` (numbers digit-grouped; `count` also picks the plural form).
 * Agent text passed as a parameter goes in as it is: it is never translated.
 */
export function t(key: MessageKey, params?: Params, lang: Language = current): string {
  const msg = CATALOGS[lang][key] ?? en[key];
  const count = typeof params?.count === 'number' ? params.count : undefined;
  const text = pick(msg, lang, count);
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? groupDigits(v) : v;
  });
}

/** The placeholder names a catalog text uses (the completeness test compares them across languages). */
export function placeholders(msg: string | Plural): string[] {
  const texts = typeof msg === 'string' ? [msg] : [msg.one ?? '', msg.other];
  const names = new Set<string>();
  for (const s of texts) for (const m of s.matchAll(/\{(\w+)\}/g)) names.add(m[1]!);
  return [...names].sort();
}
