// "Did you mean …?" for a mistyped flag or command: the nearest known name
// by edit distance (insertions, deletions, substitutions and swaps of two
// neighbours each count one), when it is near enough to be a typo.

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (!m) return n;
  if (!n) return m;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

/** How far a typo may be from the name it meant: one edit for short names, two from five letters, three from ten. */
const tolerance = (word: string): number => (word.length >= 10 ? 3 : word.length >= 5 ? 2 : 1);

/** The known name nearest to `word` (case-insensitive), or null when none is near enough or two are equally near. */
export function closest(word: string, known: readonly string[]): string | null {
  const w = word.toLowerCase();
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const k of new Set(known)) {
    const d = editDistance(w, k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
      tie = false;
    } else if (d === bestD) tie = true;
  }
  return best !== null && !tie && bestD > 0 && bestD <= tolerance(w) ? best : null;
}

/** What yargs knows of one command's options (its getOptions()): every name and alias, and which ones are booleans. */
export interface KnownOptions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  boolean: string[];
}

const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The first flag of `argv` (up to `--`) that names no known option, as typed
 * (`--older-thn`, `-x`), with the nearest known flag; null when every flag is
 * known. yargs also reads a name in camelCase and a boolean as `--no-name`.
 */
export function unknownFlag(argv: readonly string[], o: KnownOptions): { flag: string; suggestion: string | null } | null {
  const names = new Set<string>();
  for (const k of Object.keys(o.key)) names.add(k);
  for (const [k, as] of Object.entries(o.alias)) for (const x of [k, ...as]) names.add(x);
  const booleans = new Set(o.boolean.flatMap((b) => [b, ...(o.alias[b] ?? [])]));
  const known = (name: string): boolean => {
    const negated = /^no-(.+)$/.exec(name)?.[1];
    return names.has(name) || names.has(kebab(name)) || names.has(camel(name)) || (negated !== undefined && booleans.has(negated));
  };
  const long = [...names].filter((n) => n.length > 1 && n === kebab(n));
  for (const a of argv) {
    if (a === '--') break;
    if (a.startsWith('--') && a.length > 2) {
      const name = a.slice(2).split('=')[0]!.slice(0, 60);
      if (!known(name)) {
        const near = closest(name, long);
        return { flag: `--${name}`, suggestion: near ? `--${near}` : null };
      }
    } else if (/^-[^-\d]/.test(a)) {
      for (const c of a.slice(1).split('=')[0]!) {
        if (!names.has(c)) return { flag: `-${c}`, suggestion: null };
      }
    }
  }
  return null;
}
