// A command for the user to paste into a POSIX shell: every word in single
// quotes unless it is plainly safe, and nothing copied that a terminal or a
// shell could read as something else. Single quotes make `$`, backquotes,
// `\` and spaces literal; a C0/C1 control (newline, ESC: a paste could end
// a bracketed paste or run a line), a bidi control or an invisible format
// character (the command on screen would differ from what runs) is refused,
// never escaped, because no quoting survives every shell and terminal.

/** The parts of a resume command: `cd <cwd> && <command…> <target>`. */
export interface ResumeCommand {
  /** The directory the agent is started in (it finds its sessions by it); null: no cd. */
  cwd: string | null;
  /** The program and its fixed flags ('codex', 'resume'). */
  command: readonly string[];
  /** The session's id or file, the last word. */
  target: string;
}

// C0, DEL, C1, line and paragraph separators, bidi controls, and every format (Cf) or default-ignorable character.
// eslint-disable-next-line no-control-regex
const REFUSED = /[\x00-\x1f\x7f-\x9f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Cn}]/u;
// Words a shell reads as themselves in every position (no glob, no tilde, no `=` that could read as an assignment first).
const BARE = /^[A-Za-z0-9_@%+:,./-]+$/;

/** Whether a word can be put in a copied command at all. */
export function pastable(word: string): boolean {
  return !REFUSED.test(word);
}

/** One shell word: bare when nothing in it is special, else in single quotes (a quote inside as '\''). Call pastable() first. */
export function shellQuote(word: string): string {
  if (BARE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line, or null when a part cannot be pasted safely: a refused
 * character, a target an agent would read as a flag, or a cwd that is not
 * absolute (cd would read `-x` as a flag, and a relative one means nothing).
 */
export function resumeLine(c: ResumeCommand): string | null {
  const parts = [...(c.cwd === null ? [] : [c.cwd]), ...c.command, c.target];
  if (!c.target || c.target.startsWith('-') || !parts.every(pastable)) return null;
  if (c.cwd !== null && !c.cwd.startsWith('/')) return null;
  const run = [...c.command, c.target].map(shellQuote).join(' ');
  return c.cwd === null ? run : `cd ${shellQuote(c.cwd)} && ${run}`;
}

/** `<id> <path>` for `y`, the path as one shell word; null when either cannot be pasted safely. */
export function referenceLine(id: string, path: string | null): string | null {
  if (!id || !pastable(id) || (path !== null && !pastable(path))) return null;
  return path === null ? shellQuote(id) : `${shellQuote(id)} ${shellQuote(path)}`;
}
