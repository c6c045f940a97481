// Which files did cleanerx itself open? The real binary runs under
// `strace -f -y`; the trace is parsed into open events (path as the kernel
// resolved it when the open succeeded, else the requested path made absolute
// against its directory fd or the cwd) and flags. Processes started by
// cleanerx that exec another program (the agents' own `codex app-server`,
// `opencode`, version probes) are left out together with every process and
// thread they start: they read their own config, which is their business.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const STRACE = '/usr/bin/strace';

export interface OpenEvent {
  tid: number;
  syscall: string;
  path: string;
  flags: string[];
  ok: boolean;
}

export interface TracedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Opens by cleanerx's own process, its threads and its own children (node running cleanerx). */
  opens: OpenEvent[];
  /** Programs cleanerx started whose opens are left out (their argv[0]). */
  foreign: string[];
}

/** The strace binary, or an Error naming how to get it (the test setup installs it as root). */
export function straceOrError(): string | Error {
  const r = spawnSync(STRACE, ['-V'], { encoding: 'utf8' });
  if (r.status === 0) return STRACE;
  return new Error('strace is missing; install it (apt-get install strace) or run `npm test` as root, which installs it.');
}

/** C-style escapes as strace prints them (\" \\ \n \t \ooo \xhh), decoded as UTF-8 bytes. */
function unescapeC(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = s[++i]!;
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, '\\': 92 };
    if (simple[n] !== undefined) bytes.push(simple[n]);
    else if (n === 'x') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(n)) {
      let oct = n;
      while (oct.length < 3 && /[0-7]/.test(s[i + 1] ?? '')) oct += s[++i];
      bytes.push(parseInt(oct, 8));
    } else bytes.push(...Buffer.from(n, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A quoted string starting at `s[at] === '"'`: its decoded value and the index after the closing quote. */
function quoted(s: string, at: number): { value: string; end: number } | null {
  if (s[at] !== '"') return null;
  let i = at + 1;
  while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
  return { value: unescapeC(s.slice(at + 1, i)), end: i + 1 };
}

/** `5</some/dir>` → '/some/dir'; AT_FDCWD → null. */
function fdPath(tok: string): string | null {
  const m = /^-?\d+<(.*)>$/.exec(tok.trim());
  return m ? unescapeC(m[1]!) : null;
}

interface Call {
  tid: number;
  name: string;
  args: string;
  ret: string | null;
}

/** `args) = ret` (strace pads short lines before the `=`). */
function splitReturn(s: string): [string, string | null] {
  const m = /\)\s+=\s+(-?\d[^)]*|\?.*)$/.exec(s) ?? /\)\s+=\s+(.*)$/.exec(s);
  return m ? [s.slice(0, m.index), m[1]!] : [s, null];
}

const LINE = /^(\d+)\s+(?:<\.\.\. (\w+) resumed>(.*)|(\w+)\((.*))$/;

/** Joins `<unfinished ...>` / `<... resumed>` halves; returns whole calls in order of entry. */
function calls(text: string): Call[] {
  const out: Call[] = [];
  const pending = new Map<number, Call>();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const tid = Number(m[1]);
    if (m[2]) {
      const c = pending.get(tid);
      if (!c) continue;
      pending.delete(tid);
      const [args, ret] = splitReturn(m[3]!);
      c.args += args;
      c.ret = ret;
      continue;
    }
    const body = m[5]!;
    const c: Call = { tid, name: m[4]!, args: body, ret: null };
    if (body.endsWith(' <unfinished ...>')) {
      c.args = body.slice(0, -' <unfinished ...>'.length);
      pending.set(tid, c);
    } else [c.args, c.ret] = splitReturn(body);
    out.push(c);
  }
  return out;
}

function openEvent(c: Call, cwd: string): OpenEvent | null {
  let rest = c.args;
  let dir: string | null = null;
  if (c.name === 'openat' || c.name === 'openat2') {
    const comma = rest.indexOf(', "');
    if (comma < 0) return null;
    dir = fdPath(rest.slice(0, comma));
    rest = rest.slice(comma + 2);
  } else if (c.name !== 'open') return null;
  const q = quoted(rest, 0);
  if (!q) return null;
  const after = rest.slice(q.end).replace(/^,\s*/, '');
  const flagText = c.name === 'openat2' ? (/flags=([^,}]*)/.exec(after)?.[1] ?? '') : after.split(',')[0]!;
  const ok = c.ret !== null && /^\d+/.test(c.ret);
  const resolved = ok ? fdPath(c.ret!.split(' ')[0]!) : null;
  const requested = isAbsolute(q.value) ? q.value : resolve(dir ?? cwd, q.value);
  return { tid: c.tid, syscall: c.name, path: resolved ?? requested, flags: flagText.trim().split('|'), ok };
}

/** The opens of cleanerx's own processes in an `strace -f -y` trace, and the other programs it ran. */
export function parseTrace(text: string, cli: string, cwd: string): { opens: OpenEvent[]; foreign: string[] } {
  const all = calls(text);
  const ownDist = resolve(cli, '..');
  const parent = new Map<number, number>();
  const execd = new Map<number, { own: boolean; argv0: string }>();
  let root: number | null = null;
  for (const c of all) {
    if (['clone', 'clone3', 'fork', 'vfork'].includes(c.name) && c.ret && /^\d+/.test(c.ret)) parent.set(parseInt(c.ret, 10), c.tid);
    if (c.name === 'execve' && c.ret?.startsWith('0')) {
      if (root === null) {
        root = c.tid;
        continue;
      }
      const file = quoted(c.args, 0)?.value ?? '';
      const argv = [...c.args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => unescapeC(m[1]!));
      const own = file === process.execPath && argv.slice(2).some((a) => a.startsWith(ownDist + '/'));
      execd.set(c.tid, { own, argv0: file });
    }
  }
  const foreignTid = (tid: number): boolean => {
    for (let t: number | undefined = tid, n = 0; t !== undefined && n < 10_000; t = parent.get(t), n++) {
      const e = execd.get(t);
      if (e) return !e.own;
    }
    return false;
  };
  const opens: OpenEvent[] = [];
  for (const c of all) {
    if (foreignTid(c.tid)) continue;
    const e = openEvent(c, cwd);
    if (e) opens.push(e);
  }
  const foreign = [...new Set([...execd.values()].filter((e) => !e.own).map((e) => e.argv0))];
  return { opens, foreign };
}

/**
 * Runs `node <cli> ...args` under strace and returns the opens of cleanerx's
 * own processes. `cli` also marks cleanerx's own child processes (node
 * running a file under the same dist/).
 */
export function tracedRun(cli: string, args: string[], env: Record<string, string>, opts: { cwd: string; timeoutMs?: number; input?: string }): TracedRun {
  const dir = mkdtempSync(join(tmpdir(), 'cleanerx-strace-'));
  const out = join(dir, 'trace');
  try {
    const r = spawnSync(
      STRACE,
      ['-f', '-y', '-s', '65535', '-qq', '-e', 'trace=open,openat,openat2,execve,clone,clone3,fork,vfork', '-o', out, process.execPath, cli, ...args],
      { env, cwd: opts.cwd, encoding: 'utf8', input: opts.input ?? '', timeout: opts.timeoutMs ?? 120_000 },
    );
    const text = readFileSync(out, 'utf8');
    if (process.env.KEEP_TRACE) copyFileSync(out, `${process.env.KEEP_TRACE}.${args[0]}`);
    const { opens, foreign } = parseTrace(text, cli, opts.cwd);
    if (opens.length === 0) throw new Error(`The trace holds no open of cleanerx's own (strace exit ${r.status}: ${r.stderr.slice(0, 300)}).`);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, opens, foreign };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Opens that write or create (anything but a pure read). */
export function writes(e: OpenEvent): boolean {
  return e.flags.some((f) => ['O_WRONLY', 'O_RDWR', 'O_CREAT', 'O_TRUNC', 'O_APPEND', 'O_TMPFILE'].includes(f));
}

/** `p` is `root` or lies beneath it. */
export function within(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith('/') ? root : root + '/');
}
