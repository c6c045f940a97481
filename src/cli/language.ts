// The process's language, settled before the first line is printed or the
// first frame drawn: --lang, else the Settings choice, else the locale, else
// English. The engine worker gets the same one through LANGUAGE_ENV.

import { type Language, parseLanguage, resolveLanguage, setLanguage, t } from '../engine/i18n/index.js';
import { ownDirs } from '../engine/host/own-dirs.js';
import { UsageError } from './usage-error.js';
import { loadSettings } from '../engine/host/settings.js';

/** --lang's value (`--lang X` or `--lang=X`): undefined when absent, '' when it has none. */
export function langFlag(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--lang') found = argv[i + 1] ?? '';
    else if (a.startsWith('--lang=')) found = a.slice('--lang='.length);
  }
  return found;
}

/** argv without --lang and its value (the bare app's fast path reads the rest). */
export function withoutLang(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--lang') i++;
    else if (!a.startsWith('--lang=')) out.push(a);
  }
  return out;
}

/**
 * Sets this process's language and returns it. A bad --lang is a usage error
 * (exit 2), said in the language the rest would have chosen. An unreadable
 * settings file counts as 'auto' here; the command that loads it says why.
 */
export async function chooseLanguage(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<Language> {
  const flag = langFlag(argv);
  let settings: 'auto' | Language = 'auto';
  try {
    settings = (await loadSettings(ownDirs(env).config)).settings.language;
  } catch {
    // A bad own-dir override is reported by the command itself.
  }
  const lang = resolveLanguage({ flag: null, env, settings });
  setLanguage(lang);
  if (flag === undefined) return lang;
  const chosen = parseLanguage(flag);
  if (!chosen) throw new UsageError(t('cli.err.lang'));
  setLanguage(chosen);
  return chosen;
}
