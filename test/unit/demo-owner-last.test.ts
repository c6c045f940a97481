// A demo home whose removal fails half way (an agent process still writing,
// or an entry this user cannot remove) keeps its owner file, so the next
// --demo can tell the rest is ours and sweep it. Root removes anything, so
// the removal runs as nobody (setpriv) when the tests run as root, from the
// built dist/ (the global setup builds it).

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_FILE } from '../../src/demo/demo-owner.js';

const REPO = join(import.meta.dirname, '..', '..');
const asRoot = process.getuid!() === 0;
const uid = asRoot ? 65534 : process.getuid!();
let base = '';
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('removeOwnerLast', () => {
  it('leaves the owner file when an entry cannot be removed, and removes everything when it can', () => {
    base = mkdtempSync(join(tmpdir(), 'cleanerx-owner-last-'));
    chmodSync(base, 0o1777); // like /tmp: nobody may remove its own entry
    const home = join(base, 'cleanerx-demo-test');
    mkdirSync(join(home, 'aaa-first'), { recursive: true });
    mkdirSync(join(home, 'stuck'));
    writeFileSync(join(home, 'stuck', 'file'), 'x');
    writeFileSync(join(home, OWNER_FILE), '{}\n');
    writeFileSync(join(home, 'zzz'), 'x');
    if (asRoot)
      for (const p of [home, join(home, 'aaa-first'), join(home, 'stuck'), join(home, 'stuck', 'file'), join(home, OWNER_FILE), join(home, 'zzz')])
        chownSync(p, uid, uid);
    // A dir its owner cannot write: its file cannot be removed, so neither can the dir.
    chmodSync(join(home, 'stuck'), 0o555);
    const script = `import { removeOwnerLast } from ${JSON.stringify(join(REPO, 'dist/demo/demo-owner.js'))}; try { removeOwnerLast(${JSON.stringify(home)}); } catch (e) { console.log(e.code); }`;
    const run = (): string => {
      const cmd = [process.execPath, '--input-type=module', '-e', script];
      const full = asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...cmd] : cmd;
      const r = spawnSync(full[0]!, full.slice(1), { cwd: REPO, encoding: 'utf8' });
      return r.stdout.trim() + r.stderr.trim();
    };
    expect(run()).toMatch(/EACCES/);
    expect(existsSync(join(home, OWNER_FILE))).toBe(true);
    expect(existsSync(join(home, 'aaa-first'))).toBe(false);
    expect(existsSync(join(home, 'zzz'))).toBe(false);
    chmodSync(join(home, 'stuck'), 0o755);
    expect(run()).toBe('');
    expect(existsSync(home)).toBe(false);
  });
});
