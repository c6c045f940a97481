// The key reference in docs/keys.md is the key tables, rendered: a binding
// added, removed or reworded without `npm run docs:keys` fails here.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderKeysDoc } from '../helpers/keys-doc.js';

const DOC = fileURLToPath(new URL('../../docs/keys.md', import.meta.url));

describe('docs/keys.md', () => {
  it('is what the key tables say', () => {
    const rendered = renderKeysDoc();
    if (process.env.CLEANERX_WRITE_KEY_DOCS === '1') writeFileSync(DOC, rendered);
    expect(rendered).toContain('| `x` |');
    expect(readFileSync(DOC, 'utf8'), 'docs/keys.md is stale: run `npm run docs:keys`').toBe(rendered);
  });
});
