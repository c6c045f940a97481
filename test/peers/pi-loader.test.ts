// Peer test: cleanerx's pi inventory against pi's OWN session lister.
//
// On a store built with buildPiFixture, `SessionManager.listAll()` from the
// installed @mariozechner/pi-coding-agent runs in a child process (with HOME,
// XDG_* and PI_CODING_AGENT_DIR pointing into a temp dir) and the built
// `cleanerx scan --agent pi --json` runs with the same environment. Both must
// list the same sessions, with the same titles (after mapping pi's display
// rule onto cleanerx's) and the same fork parents. The only tolerated
// differences are the deliberate ones, each asserted explicitly.

import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const PI_SESSION_MANAGER = join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'core', 'session-manager.js');
const PI_LISTER = fileURLToPath(new URL('./pi-list-all.mjs', import.meta.url));

/** cleanerx's title bound for first-message titles (code points, then `…`). */
const TITLE_CHARS = 96;
const FALLBACK_PREFIX = 'pi · ';
const NO_MESSAGES = '(no messages)';

interface PiSession {
  path: string;
  id: string;
  cwd: string;
  name: string | null;
  firstMessage: string;
  messageCount: number;
  parentSessionPath: string | null;
}

interface CxSession {
  id: string;
  title: string;
  parentId: string | null;
  cwd: string | null;
  paths: string[];
}

interface CxWarning {
  path: string;
  reason: string;
}

// ---- running the two listers -------------------------------------------

function runPi(t: TempEnv): PiSession[] {
  const r = spawnSync(process.execPath, [PI_LISTER, PI_SESSION_MANAGER], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: 25_000 });
  if (r.status !== 0) throw new Error(`pi lister failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { sessionsDir: string; sessions: PiSession[] };
  expect(out.sessionsDir).toBe(join(t.env.PI_CODING_AGENT_DIR!, 'sessions'));
  return out.sessions;
}

function runCleanerx(t: TempEnv): { sessions: CxSession[]; warnings: CxWarning[] } {
  const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'pi', '--json'], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: 25_000 });
  if (r.status !== 0) throw new Error(`cleanerx scan failed (${r.status ?? r.signal}): ${r.stderr}`);
  const report = JSON.parse(r.stdout) as { version: number; agents: { agent: string; home: string; writers: unknown[]; sessions: CxSession[]; warnings: CxWarning[] }[] };
  expect(report.version).toBe(1);
  expect(report.agents).toHaveLength(1);
  const a = report.agents[0]!;
  expect(a.agent).toBe('pi');
  expect(a.home).toBe(t.env.PI_CODING_AGENT_DIR);
  expect(a.writers).toEqual([]); // the fake /proc is empty
  return { sessions: a.sessions, warnings: a.warnings };
}

/** Every entry under `dir` (links not followed) with size, mtime and mode: both listers must leave it unchanged. */
function treeState(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${p} ${st.mode.toString(8)} ${st.isDirectory() ? '-' : st.size} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

// ---- the mapping from pi's view onto cleanerx's -------------------------

/** session-selector.js: `(name ?? firstMessage).replace(/[\x00-\x1f\x7f]/g, " ").trim()`. */
function piDisplayTitle(s: PiSession): string {
  // eslint-disable-next-line no-control-regex
  return (s.name ?? s.firstMessage).replace(/[\x00-\x1f\x7f]/g, ' ').trim();
}

type ExpectedTitle = { fallback: true } | { fallback: false; text: string };

/** pi's control-character rule, then cleanerx's: whitespace runs collapsed, at most 96 code points + `…`. */
function cleanerxForm(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const collapsed = raw.replace(/[\x00-\x1f\x7f]/g, ' ').trim().replace(/\s+/g, ' ');
  const cps = Array.from(collapsed);
  return cps.length > TITLE_CHARS ? cps.slice(0, TITLE_CHARS).join('') + '…' : collapsed;
}

/**
 * pi shows `name ?? firstMessage`. cleanerx shows the same text in its own form,
 * except where pi's would be blank: a name that cleans to nothing falls through
 * to the first message, and pi's "(no messages)" or a first message that
 * cleans to nothing becomes the fallback title "pi · <date> · <id8>".
 */
function expectedCleanerxTitle(s: PiSession): ExpectedTitle {
  if (s.name !== null) {
    const named = cleanerxForm(s.name);
    if (named) return { fallback: false, text: named };
  }
  if (s.firstMessage === NO_MESSAGES) return { fallback: true };
  const first = cleanerxForm(s.firstMessage);
  return first ? { fallback: false, text: first } : { fallback: true };
}

function titleMismatch(p: PiSession, c: CxSession): string | null {
  const want = expectedCleanerxTitle(p);
  if (want.fallback) {
    return c.title.startsWith(FALLBACK_PREFIX) && c.title.includes(p.id.slice(0, 8))
      ? null
      : `${p.id}: pi shows ${JSON.stringify(piDisplayTitle(p))}, cleanerx title ${JSON.stringify(c.title)} is not the fallback`;
  }
  return c.title === want.text ? null : `${p.id}: title ${JSON.stringify(c.title)}, expected ${JSON.stringify(want.text)} (pi: ${JSON.stringify(piDisplayTitle(p))})`;
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * pi gives the parent as a file path, verbatim from the header (0.73 keeps a
 * relative `--fork` argument relative to the fork's cwd). It names a parent
 * only when it resolves to a file pi itself listed.
 */
function piParentIds(pi: PiSession[]): Map<string, string | null> {
  const idByReal = new Map<string, string>();
  for (const s of pi) {
    const real = realOrNull(s.path);
    if (real && !idByReal.has(real)) idByReal.set(real, s.id);
  }
  const out = new Map<string, string | null>();
  for (const s of pi) {
    let parent: string | null = null;
    if (s.parentSessionPath) {
      const abs = isAbsolute(s.parentSessionPath) ? s.parentSessionPath : resolve(s.cwd, s.parentSessionPath);
      const real = realOrNull(abs);
      parent = real ? (idByReal.get(real) ?? null) : null;
    }
    out.set(s.path, parent);
  }
  return out;
}

/** Compares the sessions both sides list at the same path; returns human-readable mismatches. */
function compare(pi: PiSession[], cx: CxSession[]): string[] {
  const problems: string[] = [];
  const parents = piParentIds(pi);
  const cxByPath = new Map(cx.map((c) => [c.paths[0]!, c]));
  for (const p of pi) {
    const c = cxByPath.get(p.path);
    if (!c) {
      problems.push(`${p.id}: listed by pi at ${p.path}, missing from cleanerx`);
      continue;
    }
    if (c.id !== p.id) problems.push(`${p.path}: id ${c.id} in cleanerx, ${p.id} in pi`);
    const t = titleMismatch(p, c);
    if (t) problems.push(t);
    const want = parents.get(p.path) ?? null;
    if (c.parentId !== want) problems.push(`${p.id}: parent ${String(c.parentId)} in cleanerx, ${String(want)} in pi (${String(p.parentSessionPath)})`);
    if (c.cwd !== (p.cwd || null)) problems.push(`${p.id}: cwd ${String(c.cwd)} in cleanerx, ${p.cwd} in pi`);
  }
  const piPaths = new Set(pi.map((p) => p.path));
  for (const c of cx) if (!piPaths.has(c.paths[0]!)) problems.push(`${c.id}: listed by cleanerx at ${c.paths[0]}, not by pi`);
  return problems;
}

// ---- fixture --------------------------------------------------------------

function buildStore(t: TempEnv, hostile: boolean, extra: { escapeTitle?: boolean } = {}): PiFixtureManifest {
  return buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 8,
    sessionsPerProject: 12,
    seed: 11,
    now: Date.UTC(2026, 10, 29, 12, 0, 0),
    cwdRoot: join(t.env.HOME!, 'src'),
    forkRate: 0.35,
    bodyBytes: 1500,
    edgeCases: true,
    hostile,
    ...extra,
  });
}

const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

let temp: TempEnv | null = null;
afterEach(() => {
  temp?.cleanup();
  temp = null;
});

describe('pi peer: SessionManager.listAll() vs cleanerx scan --json', () => {
  it('preconditions: pi is installed and the CLI is built', () => {
    expect(existsSync(PI_SESSION_MANAGER)).toBe(true);
    expect(existsSync(CLI)).toBe(true);
  });

  it('lists the same sessions with the same titles and fork parents', () => {
    temp = makeTempEnv('cleanerx-peer-pi-');
    const t = temp;
    const manifest = buildStore(t, false);
    const before = treeState(t.env.PI_CODING_AGENT_DIR!);

    const pi = runPi(t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before); // listAll() is read-only
    const { sessions: cx, warnings } = runCleanerx(t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before);

    // Same session ids, each once, on both sides, and exactly the manifest's.
    const piIds = pi.map((s) => s.id);
    expect(new Set(piIds).size).toBe(piIds.length);
    expect(sorted(cx.map((s) => s.id))).toEqual(sorted(piIds));
    expect(sorted(piIds)).toEqual(sorted(manifest.sessions.map((s) => s.id)));
    expect(warnings).toEqual([]);

    expect(compare(pi, cx)).toEqual([]);

    // The store really exercised what this test is about (computed from pi's own view).
    const parents = piParentIds(pi);
    const byId = new Map(pi.map((s) => [s.id, s]));
    const parentOf = (s: PiSession): PiSession | undefined => {
      const id = parents.get(s.path);
      return id ? byId.get(id) : undefined;
    };
    const forks = pi.filter((s) => parentOf(s));
    expect(forks.length).toBeGreaterThanOrEqual(10);
    expect(forks.some((s) => parentOf(parentOf(s)!) !== undefined), 'fork of a fork').toBe(true);
    expect(forks.some((s) => parentOf(s)!.cwd !== s.cwd), 'cross-project fork').toBe(true);
    expect(forks.some((s) => !isAbsolute(s.parentSessionPath!)), 'relative parent path').toBe(true);
    expect(pi.some((s) => s.parentSessionPath && !parentOf(s)), 'dangling parent').toBe(true);
    expect(pi.some((s) => s.name !== null)).toBe(true);
    expect(pi.some((s) => s.name === null && s.firstMessage !== NO_MESSAGES)).toBe(true);
    expect(pi.filter((s) => s.name === null && s.firstMessage === NO_MESSAGES).length).toBeGreaterThanOrEqual(2);
    expect(pi.filter((s) => piDisplayTitle(s) === '').length, 'titles pi shows blank').toBeGreaterThanOrEqual(2);
    expect(pi.some((s) => /[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]/.test(piDisplayTitle(s))), 'CJK title').toBe(true);
    // eslint-disable-next-line no-control-regex
    expect(pi.some((s) => /[\x00-\x1f]/.test(s.name ?? s.firstMessage)), 'control characters').toBe(true);
    expect(cx.some((s) => s.title.endsWith('…')), 'truncated title').toBe(true);
    expect(new Set(pi.map((s) => s.cwd)).size).toBeGreaterThanOrEqual(8);
  });

  it('on a hostile store differs only where cleanerx deliberately refuses (symlinked file, duplicate id)', () => {
    temp = makeTempEnv('cleanerx-peer-pi-hostile-');
    const t = temp;
    const manifest = buildStore(t, true);
    const skipped = new Map(manifest.skipped.map((s) => [s.why, s.file]));
    const link = skipped.get('symlink')!;
    const dup = skipped.get('duplicate id')!;
    expect(link).toBeTruthy();
    expect(dup).toBeTruthy();
    const before = treeState(t.env.PI_CODING_AGENT_DIR!);

    const pi = runPi(t);
    const { sessions: cx, warnings } = runCleanerx(t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before);

    const piPaths = new Set(pi.map((s) => s.path));
    const cxPaths = new Set(cx.map((s) => s.paths[0]!));
    // pi lists both: the link (same id as its target) and the file that reuses an id.
    // The "duplicate" is the stray file that reuses the id (named …_dup.jsonl), never the
    // session file named after its own id, whatever order the buckets sort in.
    expect(sorted([...piPaths].filter((p) => !cxPaths.has(p))), 'cleanerx must skip exactly the link and the id-reusing copy').toEqual(sorted([link, dup]));
    expect([...cxPaths].filter((p) => !piPaths.has(p))).toEqual([]);
    const target = manifest.sessions[0]!;
    expect(pi.filter((s) => s.id === target.id).map((s) => s.path).sort()).toEqual(sorted([target.file, link, dup]));
    expect(cx.filter((s) => s.id === target.id).map((s) => s.paths[0])).toEqual([target.file]);

    // Both refusals are reported.
    expect(warnings).toContainEqual({ path: link, reason: expect.stringMatching(/symbolic link/i) as unknown as string });
    expect(warnings).toContainEqual({ path: dup, reason: expect.stringMatching(/duplicate/i) as unknown as string });

    // The other hostile entries are skipped by both (pi 0.73 also skips the symlinked bucket).
    for (const { file, why } of manifest.skipped) {
      if (why === 'symlink' || why === 'duplicate id') continue;
      expect(pi.some((s) => s.path === file || s.path.startsWith(file + '/')), `pi lists ${why}`).toBe(false);
      expect(cx.some((s) => s.paths[0] === file || s.paths[0]!.startsWith(file + '/')), `cleanerx lists ${why}`).toBe(false);
    }

    // Everything else is identical.
    expect(compare(pi.filter((s) => s.path !== link && s.path !== dup), cx)).toEqual([]);
    expect(sorted(new Set(pi.map((s) => s.id)))).toEqual(sorted(cx.map((s) => s.id)));
  });

  it('a title with terminal escapes: pi blanks only the ESC byte, cleanerx drops the whole sequence', () => {
    temp = makeTempEnv('cleanerx-peer-pi-esc-');
    const t = temp;
    buildStore(t, false, { escapeTitle: true });
    const pi = runPi(t);
    const { sessions: cx } = runCleanerx(t);
    // eslint-disable-next-line no-control-regex
    const evil = pi.filter((s) => /\x1b/.test(s.name ?? s.firstMessage));
    expect(evil.length).toBeGreaterThanOrEqual(1);
    for (const p of evil) {
      const c = cx.find((s) => s.paths[0] === p.path)!;
      expect(c).toBeTruthy();
      // Deliberate: whole CSI / OSC sequences go, not just their ESC byte.
      // eslint-disable-next-line no-control-regex
      const stripped = (p.name ?? p.firstMessage).replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, ' ');
      expect(c.title).toBe(cleanerxForm(stripped));
      // eslint-disable-next-line no-control-regex
      expect(c.title).not.toMatch(/[\x00-\x1f\x7f]/);
    }
    // Every other session still matches pi exactly.
    expect(compare(pi.filter((s) => !evil.includes(s)), cx.filter((c) => !evil.some((p) => p.path === c.paths[0])))).toEqual([]);
  });
});
