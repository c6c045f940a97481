// A restore's staging dir goes a few unlinks at a time (removeStaging):
// fs.rm({ recursive }) started one request per staged file at once, 440 MB
// at the end of a 200,000-file restore. Held here: every file goes, never
// more than a few unlinks under way; a subdir is still removed; a link in
// the staging dir's place is removed itself, its target left alone.

import { closeSync, existsSync, mkdirSync, openSync, promises as fsp, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { removeStaging } from '../../src/backup/restore-staging.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-staging-rm-');
});
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
});

it('removes 3,000 staged files with at most 8 unlinks under way', async () => {
  const dir = join(t.root, 'restore-x');
  mkdirSync(dir, { mode: 0o700 });
  for (let i = 0; i < 3000; i++) closeSync(openSync(join(dir, String(i)), 'w', 0o600));
  let now = 0;
  let most = 0;
  const unlink = fsp.unlink.bind(fsp);
  vi.spyOn(fsp, 'unlink').mockImplementation(async (p) => {
    most = Math.max(most, ++now);
    try {
      return await unlink(p);
    } finally {
      now--;
    }
  });
  await removeStaging(dir);
  expect(existsSync(dir)).toBe(false);
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(8);
});

it('removes a subdir too, and nothing when the dir is already gone', async () => {
  const dir = join(t.root, 'restore-y');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'sub', 'f'), 'x');
  writeFileSync(join(dir, '0'), 'x');
  await removeStaging(dir);
  expect(existsSync(dir)).toBe(false);
  await expect(removeStaging(dir)).resolves.toBeUndefined();
});

it('removes a link in its place without following it', async () => {
  const victim = join(t.root, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, '0'), 'keep me');
  const dir = join(t.root, 'restore-z');
  symlinkSync(victim, dir);
  await removeStaging(dir);
  expect(existsSync(dir)).toBe(false);
  expect(readdirSync(victim)).toEqual(['0']);
});
