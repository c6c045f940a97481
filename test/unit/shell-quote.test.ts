// The resume command `c` copies is pasted into a shell: every word must come
// back as itself (checked by real sh and bash), and a character that a
// terminal or a shell could read as something else refuses the copy. The
// copied commands of the four agents are run with stand-in agents on PATH in
// a hostile directory: the agent starts there, with exactly the id.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../src/adapters/claude/index.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { pastable, referenceLine, resumeLine, shellQuote } from '../../src/engine/core/shell-quote.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
});
afterEach(() => t.cleanup());

/** What each shell makes of the quoted words: printf prints each as read, NUL-separated. */
function echoedBy(shell: string, words: string[]): string[] {
  const script = words.map((w) => `printf '%s\\0' ${shellQuote(w)}`).join('\n');
  // In the temp dir: a quoting bug must not leave its `touch` behind in the checkout.
  const out = execFileSync(shell, ['-c', script], { encoding: 'utf8', cwd: t.root, env: { PATH: '/usr/bin:/bin', HOME: t.env.HOME } });
  return out.split('\0').slice(0, -1);
}

const HOSTILE_WORDS = [
  "it's",
  'a b',
  '$HOME',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a hostile word, literal on purpose
  '${PATH}',
  '$(touch pwned)',
  '`touch pwned`',
  'a;touch pwned',
  'a && touch pwned',
  'a | cat',
  '*',
  '~',
  '~/x',
  '!!',
  '\\',
  "'",
  "''",
  '"',
  'a=b',
  '#not a comment',
  '目录 with 空格',
  '-',
  '',
];

describe('shellQuote', () => {
  it('leaves plain words bare and quotes the rest in single quotes', () => {
    expect(shellQuote('01a20f63-4955-752e-84ba-e76871a4f1f8')).toBe('01a20f63-4955-752e-84ba-e76871a4f1f8');
    expect(shellQuote('/home/me/work/repo-alpha')).toBe('/home/me/work/repo-alpha');
    expect(shellQuote("it's a $dir")).toBe(`'it'\\''s a $dir'`);
    expect(shellQuote('~')).toBe(`'~'`);
    expect(shellQuote('')).toBe(`''`);
  });

  it('hands every hostile word back unchanged through sh and bash, running nothing', () => {
    for (const shell of ['/bin/sh', '/bin/bash']) {
      expect(echoedBy(shell, HOSTILE_WORDS), shell).toEqual(HOSTILE_WORDS);
    }
    expect(readdirSync(t.root).filter((n) => n.startsWith('pwned'))).toEqual([]);
  });

  it('any pastable string survives the round trip through sh', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 24 }), { minLength: 1, maxLength: 20 }), (words) => {
        const ok = words.filter(pastable);
        if (!ok.length) return;
        expect(echoedBy('/bin/sh', ok)).toEqual(ok);
      }),
      { numRuns: 40 },
    );
  });
});

describe('pastable', () => {
  it('refuses control, bidi and invisible characters, which could end a paste or show another command than runs', () => {
    for (const bad of [
      'a\nb',
      'a\rb',
      'a\x1b[201~b',
      'a\x07',
      'a\x00b',
      'a\x7fb',
      'a\x9bb',
      'a\u2028b',
      'a\u202eb',
      'a\u2066b',
      'a\u200bb',
      'a\ufeffb',
      'a\tb',
    ])
      expect(pastable(bad), JSON.stringify(bad)).toBe(false);
    for (const good of HOSTILE_WORDS) expect(pastable(good), good).toBe(true);
  });
});

describe('resumeLine', () => {
  it('quotes a hostile cwd and id into one safe line', () => {
    expect(resumeLine({ cwd: "/tmp/it's a $(dir)", command: ['codex', 'resume'], target: 'a`b' })).toBe(`cd '/tmp/it'\\''s a $(dir)' && codex resume 'a\`b'`);
    expect(resumeLine({ cwd: null, command: ['claude', '--resume'], target: 'abc' })).toBe('claude --resume abc');
  });

  it('refuses a command that could do something else: a control character, a target read as a flag, a relative cwd', () => {
    expect(resumeLine({ cwd: '/tmp/a\nrm -rf ~', command: ['codex', 'resume'], target: 'x' })).toBeNull();
    expect(resumeLine({ cwd: '/tmp/a', command: ['codex', 'resume'], target: 'x\x1b]52;c;AAAA\x07' })).toBeNull();
    expect(resumeLine({ cwd: '/tmp/a', command: ['codex', 'resume'], target: '--last' })).toBeNull();
    expect(resumeLine({ cwd: '/tmp/a', command: ['codex', 'resume'], target: '' })).toBeNull();
    expect(resumeLine({ cwd: '-P', command: ['codex', 'resume'], target: 'x' })).toBeNull();
    expect(resumeLine({ cwd: 'work/x', command: ['codex', 'resume'], target: 'x' })).toBeNull();
  });
});

describe('referenceLine', () => {
  it('is the id and the file as one line, the file one shell word', () => {
    expect(referenceLine('abc', "/h/it's.jsonl")).toBe(`abc '/h/it'\\''s.jsonl'`);
    expect(referenceLine('abc', null)).toBe('abc');
    expect(referenceLine('abc', '/h/a\nb')).toBeNull();
    expect(referenceLine('a\u202eb', '/h/x')).toBeNull();
  });
});

describe("each agent's resume command, pasted", () => {
  it('starts the agent in the hostile directory with exactly the session, and runs nothing else', () => {
    const dir = join(t.root, "it's a $HOME `touch pwned` dir; touch pwned2 && $(touch pwned3)");
    mkdirSync(dir, { recursive: true });
    const bin = join(t.root, 'bin');
    mkdirSync(bin);
    for (const name of ['codex', 'claude', 'opencode', 'pi']) {
      writeFileSync(join(bin, name), `#!/bin/sh\npwd\nfor a in "$0" "$@"; do printf '[%s]' "$a"; done\necho\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const session = { id: "9f1c'x$y", cwd: dir, paths: [join(dir, "session $1 'a'.jsonl")] };
    const expected: Record<string, string> = {
      codex: `[${bin}/codex][resume][9f1c'x$y]`,
      claude: `[${bin}/claude][--resume][9f1c'x$y]`,
      opencode: `[${bin}/opencode][--session][9f1c'x$y]`,
      pi: `[${bin}/pi][--session][${session.paths[0]}]`,
    };
    for (const a of [codexAdapter, claudeAdapter, opencodeAdapter, piAdapter]) {
      const line = resumeLine(a.resumeCommand(session)!);
      expect(line, a.kind).not.toBeNull();
      const out = execFileSync('/bin/sh', ['-c', line!], { encoding: 'utf8', cwd: t.root, env: { PATH: `${bin}:/usr/bin:/bin`, HOME: t.env.HOME } });
      expect(out.split('\n').slice(0, 2), a.kind).toEqual([dir, expected[a.kind]]);
    }
    for (const p of ['pwned', 'pwned2', 'pwned3']) expect(() => execFileSync('/bin/ls', [join(t.root, p)], { stdio: 'ignore' })).toThrow();
  });

  it('pi names its session by the file; without one there is no command', () => {
    expect(piAdapter.resumeCommand({ id: 'x', cwd: '/w', paths: [] })).toBeNull();
    expect(codexAdapter.resumeCommand({ id: 'x', cwd: '/w', paths: [] })).toEqual({ cwd: '/w', command: ['codex', 'resume'], target: 'x' });
  });
});
