// Text an agent's folder brings in both languages (its descriptor's notices
// and errors), so a new agent adds its strings beside its code, not in the
// shared catalogs. Typed by Language: a descriptor without a Chinese text
// does not compile; test/unit/agent-registry.test.ts fails when one equals its English.

import { getLanguage, type Language } from './index.js';

export type Localized = Readonly<Record<Language, string>>;

/** The text in the current language, `{name}` placeholders filled from `params`. */
export function localized(text: Localized, params?: Readonly<Record<string, string>>): string {
  const s = text[getLanguage()] ?? text.en;
  return params ? s.replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole) : s;
}
