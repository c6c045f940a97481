// $XDG_CONFIG_HOME/cleanerx/config.json: target agent, home overrides,
// retention, key store, language. Read strictly; anything unrecognized falls back to defaults
// with a warning instead of guessing.

import { isAgentKind } from '../core/agents.js';
import { isAbsolute, join } from 'node:path';
import { BoundedReadError, readRegularTextAsync } from './bounded-read.js';
import type { AgentKind } from '../core/model.js';
import { type LanguageSetting, t } from '../i18n/index.js';
import { cleanText } from '../core/text.js';
import { parseBoundedJson } from '../core/bounded-json.js';

export interface Settings {
  version: 1;
  targetAgent: AgentKind | null;
  homeOverrides: Partial<Record<AgentKind, string>>;
  retention: { backupDays: number; logDays: number; tempHours: number };
  /** Where the backup identity is unlocked from: the passphrase file, or (opt-in) the OS key ring. */
  backupKeyStore: 'file' | 'keyring';
  /** The interface language: 'auto' follows --lang and the locale (LC_ALL, LC_MESSAGES, LANG). */
  language: LanguageSetting;
}

export const DEFAULT_SETTINGS: Settings = {
  version: 1,
  targetAgent: null,
  homeOverrides: {},
  retention: { backupDays: 30, logDays: 7, tempHours: 24 },
  backupKeyStore: 'file',
  language: 'auto',
};

export interface LoadedSettings {
  settings: Settings;
  /** Set when the file exists but could not be used and the defaults are in effect: one sentence naming the file, why, and "using defaults". `scan` and `doctor` print it. */
  warning?: string;
  path: string;
}

const MAX_CONFIG_BYTES = 64 * 1024;

export function settingsPath(configDir: string): string {
  return join(configDir, 'config.json');
}

export async function loadSettings(configDir: string): Promise<LoadedSettings> {
  const path = settingsPath(configDir);
  let raw: string;
  try {
    raw = await readRegularTextAsync(path, MAX_CONFIG_BYTES);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { settings: clone(DEFAULT_SETTINGS), path };
    const reason = e instanceof BoundedReadError ? e.reason : 'unreadable';
    const key =
      reason === 'link'
        ? 'settings.file.link'
        : reason === 'notRegular'
          ? 'settings.file.notRegular'
          : reason === 'tooLarge'
            ? 'settings.file.tooLarge'
            : 'settings.file.unreadable';
    return { settings: clone(DEFAULT_SETTINGS), path, warning: t(key, { path }) };
  }
  try {
    return { settings: validateSettings(parseBoundedJson(raw)), path };
  } catch (e) {
    return { settings: clone(DEFAULT_SETTINGS), path, warning: t('settings.file.invalid', { path, reason: (e as Error).message }) };
  }
}

export async function saveSettings(configDir: string, s: Settings): Promise<void> {
  const valid = validateSettings(s);
  // Loaded on the first save: every start reads the settings (the language), few write them, and atomic.js brings node:crypto.
  const { writeFileAtomic } = await import('./atomic.js');
  await writeFileAtomic(settingsPath(configDir), JSON.stringify(valid, null, 2) + '\n');
}

/** Throws a one-sentence reason for the first problem found. */
export function validateSettings(v: unknown): Settings {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
  const o = v as Record<string, unknown>;
  if (o.version !== 1) throw new Error('unknown version');
  const target = o.targetAgent ?? null;
  if (target !== null && !isAgentKind(target)) throw new Error('unknown targetAgent');
  const ho = o.homeOverrides ?? {};
  if (typeof ho !== 'object' || ho === null || Array.isArray(ho)) throw new Error('homeOverrides must be an object');
  const homeOverrides: Partial<Record<AgentKind, string>> = {};
  for (const [k, val] of Object.entries(ho)) {
    // The key is outside data: never echoed raw (an escape sequence in config.json must not reach the terminal).
    if (!isAgentKind(k)) throw new Error(`unknown agent "${cleanText(k, 40)}" in homeOverrides`);
    if (val === undefined || val === null || val === '') continue;
    if (typeof val !== 'string' || !isAbsolute(val)) throw new Error(`home override for ${k} must be an absolute path`);
    homeOverrides[k as AgentKind] = val;
  }
  const r = (o.retention ?? {}) as Record<string, unknown>;
  const num = (x: unknown, lo: number, hi: number, d: number, name: string): number => {
    if (x === undefined) return d;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < lo || x > hi) throw new Error(`${name} must be a whole number from ${lo} to ${hi}`);
    return x;
  };
  return {
    version: 1,
    targetAgent: target as AgentKind | null,
    homeOverrides,
    retention: {
      backupDays: num(r.backupDays, 1, 3650, 30, 'retention.backupDays'),
      logDays: num(r.logDays, 1, 365, 7, 'retention.logDays'),
      tempHours: num(r.tempHours, 1, 8760, 24, 'retention.tempHours'),
    },
    backupKeyStore: keyStore(o.backupKeyStore),
    language: language(o.language),
  };
}

function keyStore(v: unknown): 'file' | 'keyring' {
  if (v === undefined || v === 'file') return 'file';
  if (v === 'keyring') return 'keyring';
  throw new Error('backupKeyStore must be "file" or "keyring"');
}

function language(v: unknown): LanguageSetting {
  if (v === undefined || v === 'auto') return 'auto';
  if (v === 'en' || v === 'zh') return v;
  throw new Error('language must be "auto", "en" or "zh"');
}

function clone(s: Settings): Settings {
  return JSON.parse(JSON.stringify(s)) as Settings;
}
