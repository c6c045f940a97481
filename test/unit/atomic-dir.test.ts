// writeFileAtomic's receiving directory (#26 item 1): cleanerx's own state
// is written only into a directory this user owns and no one else may
// write, checked through a descriptor on it; the path to it may go through
// the user's own links. The partial is created exclusively, never through
// a link planted at its name.

import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const uuid = vi.hoisted(() => ({ next: null as string | null }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, randomUUID: () => uuid.next ?? real.randomUUID() };
});

const { writeFileAtomic } = await import('../../src/engine/host/atomic.js');

let t: TempEnv;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-atomic-dir-');
  state = join(t.root, 'state');
  mkdirSync(state, { mode: 0o700 });
});
afterEach(() => {
  uuid.next = null;
  vi.restoreAllMocks();
  t.cleanup();
});

describe('the directory that receives the file', () => {
  for (const mode of [0o770, 0o720, 0o702, 0o777, 0o1777]) {
    it(`writable by others (mode ${mode.toString(8)}): refused in one sentence naming it, nothing written`, async () => {
      chmodSync(state, mode);
      const e = await writeFileAtomic(join(state, 'settings.json'), '{}').catch((x: Error) => x);
      expect((e as Error).message).toBe(`Refusing to write into ${state}: other users can write in it; make it private (chmod go-w ${state}) and try again.`);
      expect(readdirSync(state)).toEqual([]);
    });
  }

  it('owned by another user: refused in one sentence naming it, nothing written', async () => {
    vi.spyOn(process, 'geteuid').mockReturnValue(process.getuid!() + 1);
    const e = await writeFileAtomic(join(state, 'settings.json'), '{}').catch((x: Error) => x);
    expect((e as Error).message).toBe(`Refusing to write into ${state}: it belongs to another user; point cleanerx at a directory of your own.`);
    expect(readdirSync(state)).toEqual([]);
  });

  it('readable by others but writable only by this user (0755), and reached through a link of the user: written', async () => {
    chmodSync(state, 0o755);
    const link = join(t.root, 'state-link');
    symlinkSync(state, link);
    await writeFileAtomic(join(link, 'settings.json'), '{"a":1}\n');
    expect(readFileSync(join(state, 'settings.json'), 'utf8')).toBe('{"a":1}\n');
    expect(readdirSync(state)).toEqual(['settings.json']);
  });
});

describe('the partial', () => {
  it('a link planted at its name is never followed: refused, the link and its target untouched', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    uuid.next = id;
    const victim = join(t.root, 'victim');
    writeFileSync(victim, 'keep');
    const partial = join(state, `.settings.json.${id}.partial`);
    symlinkSync(victim, partial);
    const e = await writeFileAtomic(join(state, 'settings.json'), 'new').catch((x: Error) => x);
    expect((e as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readdirSync(state)).toEqual([`.settings.json.${id}.partial`]);
  });
});
