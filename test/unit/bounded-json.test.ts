// Files cleanerx reads back are parsed only after one pass bounds their
// nesting: 10 MB of `[` under the size cap is refused at once, in the first
// few bytes past the limit, instead of costing V8 hundreds of MB first. The
// bound counts only brackets outside strings (escaped quotes included).

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonTooDeepError, MAX_JSON_DEPTH, parseBoundedJson } from '../../src/engine/core/bounded-json.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

describe('parseBoundedJson', () => {
  it('parses what JSON.parse parses within the bound, brackets inside strings not counted', () => {
    const deep = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(parseBoundedJson(deep)).toEqual(JSON.parse(deep));
    const tricky = JSON.stringify({ s: '[[[[{{{{ \\" [[[[', t: ['"[', '\\'] });
    expect(parseBoundedJson(tricky, 2)).toEqual(JSON.parse(tricky));
    expect(() => parseBoundedJson('{"a": ')).toThrow(SyntaxError);
  });

  it('refuses one level past the bound, naming where, before any parse', () => {
    const over = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    expect(() => parseBoundedJson(over)).toThrow(JsonTooDeepError);
    expect(() => parseBoundedJson('['.repeat(10_000_000))).toThrow(/deeper than 64 levels \(at character 64\)/);
  });

  it('clean --plan of 10 MB of nested [ is refused in one line, exit 2 (a bad plan file, like any other), within a 160 MB heap', () => {
    t = makeTempEnv();
    const file = join(t.root, 'plan.json');
    writeFileSync(file, '['.repeat(10 * 1024 * 1024));
    // V8 builds ~560 MB for this text when it parses it first: a 160 MB heap would die of it; the pass costs the text itself.
    const r = spawnSync(process.execPath, ['--max-old-space-size=160', CLI, 'clean', '--plan', file, '--yes'], { env: t.env, encoding: 'utf8', input: '' });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/is not a plan file \(JSON nested deeper than 64 levels/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
