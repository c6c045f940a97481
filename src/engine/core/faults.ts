// Named crash points and injected write faults, for the fault-injection
// tests: CLEANERX_CRASH_AT=<point> kills the whole process (SIGKILL, no
// cleanup) when execution reaches that point; CLEANERX_FAULT=<tag>:ENOSPC
// makes the tagged atomic write fail as a full disk would. Unset, both are
// a single string comparison. In-process tests can also run a function of
// their own at every crash point (atCrashPoints): a race made exact, such as
// a target swapped between its last check and its removal.

let onPoint: ((name: string) => void) | null = null;

/** Tests only: `f` runs at every crash point this process passes, before any CLEANERX_CRASH_AT kill; null removes it. */
export function atCrashPoints(f: ((name: string) => void) | null): void {
  onPoint = f;
}

export function crashPoint(name: string): void {
  if (onPoint) onPoint(name);
  if (process.env.CLEANERX_CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}

export function injectedFault(tag: string): NodeJS.ErrnoException | null {
  const f = process.env.CLEANERX_FAULT;
  if (!f || !f.startsWith(`${tag}:`)) return null;
  const code = f.slice(tag.length + 1);
  return Object.assign(new Error(`${code}: injected fault on ${tag} write`), { code });
}

/**
 * Every crash point an execution of this shape passes, in order. A directory
 * tree also passes `remove:<op>:<path>:partial` right after its first entry
 * is removed (a kill inside one path); it is not listed here, as the shape
 * does not say which paths are trees.
 */
export function crashPointsFor(pathsPerMutation: number[], backup = false): string[] {
  const out = ['journal:created', 'journal:preflight'];
  if (backup) out.push(...['writing', 'archiveCommitted', 'verifying', 'verified', 'catalogWriting', 'committed'].map((p) => `backup:${p}`));
  out.push('journal:deleting');
  pathsPerMutation.forEach((n, i) => {
    out.push(`mutation:${i}:running`);
    for (let p = 0; p < n; p++) out.push(`remove:${i}:${p}:before`, `remove:${i}:${p}:after`);
    out.push(`mutation:${i}:applied`);
  });
  out.push('journal:verifying', 'journal:verified', 'journal:complete');
  return out;
}

/** Every crash point a restore of `files` files passes, in order (`restore:<i>:copied` only when staging is on another filesystem). */
export function restoreCrashPointsFor(files: number): string[] {
  const each = Array.from({ length: files }, (_, i) => [`restore:${i}:before`, `restore:${i}:after`]).flat();
  return ['restore:journal', 'restore:staged', 'restore:committing', ...each, 'restore:committed', 'restore:unstaged'];
}

/** CLEANERX_FAIL_AT=<point>: an in-process error at that point (rollback paths are tested with it). */
export function failPoint(name: string): void {
  if (process.env.CLEANERX_FAIL_AT === name) throw new Error(`injected failure at ${name}`);
}
