// The suite's up-front check that user nobody can run Node on the checkout
// (test/helpers/nobody-reach.ts): a checkout below a 0700 directory gets the
// one line, the same checkout made reachable gets none.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nobodyReachProblem } from '../helpers/nobody-reach.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

function checkout(): string {
  t = makeTempEnv('cleanerx-nobody-reach-');
  const repo = join(t.root, 'home', 'cleanerx');
  mkdirSync(join(repo, 'node_modules', 'jiti'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{}');
  writeFileSync(join(repo, 'node_modules', 'jiti', 'package.json'), '{}');
  chmodSync(t.root, 0o755);
  return repo;
}

describe('nobodyReachProblem', () => {
  it('not root: no child drops to nobody, so nothing to check', () => {
    const repo = checkout();
    chmodSync(join(t.root, 'home'), 0o700);
    expect(nobodyReachProblem(repo, false)).toBeNull();
  });

  it.runIf(process.geteuid?.() === 0)('as root: a checkout below a 0700 home is named with what to do; once reachable, nothing', () => {
    const repo = checkout();
    chmodSync(join(t.root, 'home'), 0o700);
    expect(nobodyReachProblem(repo)).toMatch(
      new RegExp(`^Some tests run as user nobody .* on ${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*run npm test again\\.$`),
    );
    chmodSync(join(t.root, 'home'), 0o755);
    expect(nobodyReachProblem(repo)).toBeNull();
    chmodSync(join(repo, 'node_modules', 'jiti', 'package.json'), 0o600);
    expect(nobodyReachProblem(repo)).not.toBeNull();
  });
});
