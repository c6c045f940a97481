// Project association: a thread belongs to a project only with positive
// evidence — its absolute cwd lies beneath a root of Codex's project registry
// (`[projects."<path>"]` in config.toml, or the app-level registry in the
// state DB; the deepest root wins), else beneath the nearest ancestor holding
// a `.git`. Anything else (a desktop chat workspace such as
// ~/Documents/Codex/<date>/<slug>, an empty or relative cwd) has no project;
// a subagent without one inherits its parent's. Never resolved against
// cleanerx's own working directory; a project directory is never a mutation root.

import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { BoundedReadError, readRegularTextAsync } from '../../engine/host/bounded-read.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { uuidv5Url } from '../../engine/core/ids.js';
import type { ProjectGroup, ScanWarning } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';

const MAX_CONFIG = 1024 * 1024;
const MAX_DEPTH = 64;

interface RegistryRoot {
  root: string;
  name: string;
}

/** TOML basic-string escapes (\" \\ \n \t \uXXXX \UXXXXXXXX …); null when malformed. */
function unescapeBasic(s: string): string | null {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (n !== undefined && simple[n] !== undefined) out += simple[n];
    else if (n === 'u' || n === 'U') {
      const len = n === 'u' ? 4 : 8;
      const hex = s.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) return null;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += len;
    } else return null;
  }
  return out;
}

/** The `[projects."<path>"]` / `[projects.'<path>']` table headers of config.toml. */
export function parseProjectHeaders(toml: string): string[] {
  const out: string[] = [];
  const re = /^\s*\[\s*projects\s*\.\s*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')\s*\]\s*(?:#.*)?$/gm;
  for (const m of toml.matchAll(re)) {
    const v = m[1] !== undefined ? unescapeBasic(m[1]) : m[2]!;
    if (v && isAbsolute(v)) out.push(normalize(v).replace(/(.)\/+$/, '$1'));
  }
  return out;
}

/**
 * The project registry of config.toml, a protected file cleanerx reads:
 * read-only, never through a link or from a FIFO, at most 1 MiB
 * (engine/bounded-read.ts); only the `[projects."<path>"]` table headers are
 * taken and the text is dropped here, so no other key (model, providers,
 * tokens in env tables) outlives the parse.
 */
export async function readConfigProjects(home: string, warnings: ScanWarning[]): Promise<RegistryRoot[]> {
  const path = join(home, 'config.toml');
  try {
    return parseProjectHeaders(await readRegularTextAsync(path, MAX_CONFIG)).map((root) => ({ root, name: '' }));
  } catch (e) {
    if (e instanceof BoundedReadError && e.reason === 'missing') return [];
    warnings.push({
      path,
      reason:
        e instanceof BoundedReadError && e.reason === 'tooLarge'
          ? 'config.toml is larger than 1 MiB; its project registry is not used (Git roots still are).'
          : 'config.toml is not a readable regular file; its project registry is not used (Git roots still are).',
    });
    return [];
  }
}

export interface Association {
  root: string;
  label: string;
}

export class ProjectResolver {
  private readonly roots: RegistryRoot[];
  private readonly gitCache = new Map<string, string | null>();

  constructor(registry: RegistryRoot[]) {
    // Deepest first, so the first match is the deepest registered root.
    const seen = new Map<string, RegistryRoot>();
    for (const r of registry) {
      const prev = seen.get(r.root);
      if (!prev || (!prev.name && r.name)) seen.set(r.root, r);
    }
    this.roots = [...seen.values()].sort((a, b) => b.root.length - a.root.length);
  }

  /** The project of an absolute cwd, or null. */
  associate(cwd: string | null): Association | null {
    if (!cwd || !isAbsolute(cwd) || cwd.includes('\0')) return null;
    const dir = normalize(cwd).replace(/(.)\/+$/, '$1');
    for (const r of this.roots) {
      if (dir === r.root || dir.startsWith(r.root === sep ? sep : r.root + sep)) return { root: r.root, label: r.name || basename(r.root) || r.root };
    }
    const git = this.gitRoot(dir);
    return git ? { root: git, label: basename(git) || git } : null;
  }

  /** The nearest ancestor (or the dir itself) holding `.git` (a directory or a file). */
  private gitRoot(dir: string): string | null {
    const walked: string[] = [];
    let cur = dir;
    let found: string | null = null;
    for (let i = 0; i < MAX_DEPTH; i++) {
      const cached = this.gitCache.get(cur);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      walked.push(cur);
      if (lstatSyncOrNull(join(cur, '.git'))) {
        found = cur;
        break;
      }
      const up = dirname(cur);
      if (up === cur) break;
      cur = up;
    }
    for (const w of walked) this.gitCache.set(w, found);
    return found;
  }
}

export function projectId(root: string): string {
  return uuidv5Url(root);
}

export function projectGroup(a: Association): ProjectGroup {
  return { id: projectId(a.root), label: cleanText(a.label, 200) || a.root, roots: [cleanText(a.root, 4096)] };
}
