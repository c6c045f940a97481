// Which cleanupPeriodDays Claude Code's start-up sweep uses, resolved the way
// the pinned version does. Read from @anthropic-ai/claude-agent-sdk 0.3.333
// (bundled Claude Code 2.1.333, manifest.json), sdk.mjs — the same settings
// engine as the CLI, exported there as resolveSettings(); the peer test
// (test/unit/claude-sweep-forecast.test.ts) drives it for every rule below:
//   - sources, low to high: user `<CLAUDE_CONFIG_DIR>/settings.json`, project
//     `<cwd>/.claude/settings.json`, local `<cwd>/.claude/settings.local.json`,
//     (the --settings flag, absent at a plain start), then policy: managed
//     settings (`/etc/claude-code/managed-settings.json` on Linux,
//     `/Library/Application Support/ClaudeCode` on macOS, and the server's);
//     a later source's value replaces an earlier one (`rX`, merged by `An`);
//   - the schema is `z.number().int().positive()` ("Minimum 1"); a value that
//     fails it — 0, negative, a fraction, a string, null, 1e400 — fails the
//     whole file's validation, and Claude then uses none of that file's
//     settings ("none of its settings are in effect"): the value falls back
//     to the next lower source, else the default;
//   - a file that is not a JSON object (a syntax error, an array) is ignored
//     the same way; an empty file is `{}`;
//   - unset everywhere: `GZ = 30` days.
// Not modelled: another key of the same file that fails Claude's schema (the
// whole file is then ignored too, which cleanerx cannot tell without that
// schema), a lower managed tier's longer value (`IXe`), MDM profiles. The
// sweep itself (not in the SDK) compares each transcript's mtime with
// now − days (research/claude-code.md §6). Only this one key is kept.

import { join } from 'node:path';
import { BoundedReadError, readRegularTextAsync } from '../../engine/host/bounded-read.js';
import { cleanText } from '../../engine/core/text.js';

const DEFAULT_CLEANUP_PERIOD_DAYS = 30;
/** A settings file is a few KB; past this it is not read. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

type SettingsSource = 'user' | 'project' | 'local' | 'managed';

interface SourceFile {
  source: SettingsSource;
  path: string;
  /** How the sentences name it ("settings.json", ".claude/settings.json of /work/app"). */
  label: string;
}

/** One file that says something about cleanupPeriodDays. */
interface WrittenValue {
  source: SettingsSource;
  path: string;
  label: string;
  /** What the file holds, for the sentence (cut, cleaned); absent when the file itself is ignored (not JSON). */
  value?: string;
  /** Why Claude does not use it: 'invalid' (fails the schema), 'notJson' (the file is ignored), 'overridden' (a later source wins). */
  ignored?: 'invalid' | 'notJson' | 'overridden';
}

type CleanupPeriod =
  | { known: true; days: number; source: SettingsSource | 'default'; label: string; written: WrittenValue[] }
  /** A file cleanerx cannot read (a link, a FIFO, too large, no permission): what Claude sees is not known. */
  | { known: false; why: string; path: string; written: WrittenValue[] };

export interface SweepPlaces {
  /** Where Claude is expected to start (project and local settings); null: none. */
  cwd?: string | null;
  /** The managed-settings directory; null: none. */
  managedDir?: string | null;
}

export function sourceFiles(home: string, where: SweepPlaces = {}): SourceFile[] {
  const out: SourceFile[] = [{ source: 'user', path: join(home, 'settings.json'), label: 'settings.json' }];
  if (where.cwd) {
    const cwd = cleanText(where.cwd, 200);
    out.push({ source: 'project', path: join(where.cwd, '.claude', 'settings.json'), label: `.claude/settings.json of ${cwd}` });
    out.push({ source: 'local', path: join(where.cwd, '.claude', 'settings.local.json'), label: `.claude/settings.local.json of ${cwd}` });
  }
  if (where.managedDir) out.push({ source: 'managed', path: join(where.managedDir, 'managed-settings.json'), label: 'managed settings' });
  return out;
}

const valid = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

const shown = (v: unknown): string => cleanText(typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v), 40);

export async function resolveCleanupPeriod(home: string, where: SweepPlaces = {}): Promise<CleanupPeriod> {
  const written: WrittenValue[] = [];
  let best: { days: number; file: SourceFile; at: number } | null = null;
  for (const file of sourceFiles(home, where)) {
    let text: string;
    try {
      text = await readRegularTextAsync(file.path, MAX_SETTINGS_BYTES);
    } catch (e) {
      if (e instanceof BoundedReadError && e.reason === 'missing') continue;
      const why = e instanceof BoundedReadError ? e.message.replace(/\.$/, '') : `${file.path} cannot be read`;
      return { known: false, why, path: file.path, written };
    }
    if (!text.trim()) continue;
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      written.push({ source: file.source, path: file.path, label: file.label, ignored: 'notJson' });
      continue;
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) {
      written.push({ source: file.source, path: file.path, label: file.label, ignored: 'notJson' });
      continue;
    }
    if (!Object.hasOwn(o, 'cleanupPeriodDays')) continue;
    const v = (o as Record<string, unknown>).cleanupPeriodDays;
    if (!valid(v)) {
      written.push({ source: file.source, path: file.path, label: file.label, value: shown(v), ignored: 'invalid' });
      continue;
    }
    if (best) written[best.at]!.ignored = 'overridden';
    best = { days: v, file, at: written.length };
    written.push({ source: file.source, path: file.path, label: file.label, value: String(v) });
  }
  if (!best) return { known: true, days: DEFAULT_CLEANUP_PERIOD_DAYS, source: 'default', label: 'the default', written };
  return { known: true, days: best.days, source: best.file.source, label: best.file.label, written };
}

/** One sentence when what the files say is not what Claude uses; null when they agree. */
export function writtenDiffers(p: Extract<CleanupPeriod, { known: true }>): string | null {
  const off = p.written.filter((w) => w.ignored);
  if (!off.length) return null;
  const why = off.map((w) =>
    w.ignored === 'notJson'
      ? `${w.label} is not a JSON object, so Claude ignores all of it`
      : w.ignored === 'invalid'
        ? `${w.label} says ${w.value}, which Claude rejects (a whole number of at least 1), so it ignores that whole file`
        : `${w.label} says ${w.value}, overridden`,
  );
  return `Claude uses ${p.days} days (${p.source === 'default' ? 'the default' : p.label}): ${why.join('; ')}.`;
}
