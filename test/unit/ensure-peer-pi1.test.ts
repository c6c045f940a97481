// The pi 1.x peer's install step: instant and silent when the nested package
// is installed at its lock, one plain sentence (never a hang or a stack) when
// it cannot be installed.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script shared with the vitest global setup
import { ensurePeerPi1, PI1_DIR } from '../../scripts/ensure-peer-pi1.mjs';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/ensure-peer-pi1.mjs', import.meta.url));
const ensure = ensurePeerPi1 as (dir?: string, env?: NodeJS.ProcessEnv) => string | null;

let t: TempEnv | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

describe('scripts/ensure-peer-pi1.mjs', () => {
  it('with the nested package installed at its lock: exit 0, nothing printed', () => {
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    expect(ensure(PI1_DIR as string)).toBeNull();
  });

  it('when it cannot install (no npm on PATH): one sentence that says what to run', () => {
    t = makeTempEnv();
    const dir = join(t.root, 'pi1');
    mkdirSync(dir);
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(PI1_DIR as string, f), join(dir, f));
    const msg = ensure(dir, { ...t.env, PATH: join(t.root, 'empty-bin') });
    expect(msg).toBe(
      'Installing the pi 1.x peer failed (npm is not on PATH); run `npm ci --prefix test/peers/pi1` and fix what it reports, then run the tests again.',
    );
  });
});
