// Which language to speak: --lang, else the Settings choice, else the POSIX
// locale (LC_ALL, then LC_MESSAGES, then LANG: the first one set wins, as
// setlocale(3) reads them), else English.

export const LANGUAGES = ['en', 'zh'] as const;
/** How the app tells its engine worker the language it resolved (the worker has no argv or settings of its own). */
export const LANGUAGE_ENV = 'CLEANERX_LANG';
export type Language = (typeof LANGUAGES)[number];
/** Each language named in its own script (the same in every catalog, so a reader finds theirs). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', zh: '简体中文' };

/** What Settings stores: a language, or 'auto' (follow --lang and the locale). */
export type LanguageSetting = 'auto' | Language;

/** 'zh' / 'en' (any case) as a Language; anything else is undefined. */
export function parseLanguage(v: string | undefined | null): Language | undefined {
  const s = (v ?? '').trim().toLowerCase();
  return (LANGUAGES as readonly string[]).includes(s) ? (s as Language) : undefined;
}

/** zh_CN.UTF-8, zh_TW, zh → zh; C, POSIX, en_* and everything else → en; unset → undefined. */
export function languageFromLocale(env: Readonly<Record<string, string | undefined>>): Language | undefined {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const v = env[name];
    if (!v) continue;
    return /^zh([_.@-]|$)/i.test(v) ? 'zh' : 'en';
  }
  return undefined;
}

/**
 * The language of this process. `flag` is --lang's value (already checked
 * with parseLanguage: an unknown value is a usage error for the CLI to
 * report); an explicit Settings choice beats the ambient locale.
 */
export function resolveLanguage(o: { flag?: string | null; env: Readonly<Record<string, string | undefined>>; settings?: LanguageSetting | null }): Language {
  return parseLanguage(o.flag) ?? (o.settings && o.settings !== 'auto' ? o.settings : undefined) ?? languageFromLocale(o.env) ?? 'en';
}
