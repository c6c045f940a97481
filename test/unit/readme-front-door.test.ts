// The README is a front door: the two commands first, at most 200 lines, and
// every page it links to exists (the rest of the documentation lives there).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/engine/core/text.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** Relative links of a markdown file, without their #fragment. */
function links(text: string): string[] {
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
}

describe('README', () => {
  it('opens with the install-and-start command and the test command, and stays under 200 lines', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(firstBlock).toMatch(/^npm ci && npm start -- --demo\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
    expect(readme.indexOf('```sh')).toBeLessThan(40);
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('shows the app as it looks at 80×24', () => {
    const capture = /```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const rows = capture.replace(/\n$/, '').split('\n');
    expect(rows).toHaveLength(24);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(80);
  });

  it('links only to pages that exist, and so does every page in docs/', () => {
    const pages = [
      ['README.md', readme] as const,
      ...links(readme)
        .filter((l) => l.endsWith('.md'))
        .map((l) => [l, readFileSync(join(ROOT, l), 'utf8')] as const),
    ];
    for (const [page, text] of pages) {
      const base = dirname(join(ROOT, page));
      for (const l of links(text)) expect({ page, link: l, exists: existsSync(join(base, l)) }).toEqual({ page, link: l, exists: true });
    }
    expect(links(readme)).toContain('docs/keys.md');
  });
});
