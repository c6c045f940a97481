// The pi scan hands its bucket listings and its fstat of every session file
// to the attribution walk (Inventory.walkLog): the walk then stats no session
// file again and still gives the figures and rows of a walk of its own, on a
// store left alone and on one changed between the scan and the walk.

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import type { Installation, Inventory } from '../../src/engine/core/model.js';
import { attributeInventory } from '../../src/engine/inventory/attribution.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  t?.cleanup();
});

const pi = ADAPTERS.find((a) => a.kind === 'pi')!;

function store(): { home: string; inst: Installation; m: PiFixtureManifest } {
  t = makeTempEnv();
  const home = t.env.PI_CODING_AGENT_DIR!;
  const m = buildPiFixture({ agentDir: home, projects: 3, sessionsPerProject: 6, forkRate: 0.2, seed: 7, config: true });
  // Something in a bucket that is no session (sorted before the sessions): the walk must still count it, as a gap.
  writeFileSync(join(dirname(m.sessions[0]!.file), '.notes.txt'), 'n'.repeat(6000));
  const inst = {
    agent: 'pi',
    displayName: 'pi',
    state: 'dataOnly',
    home,
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
  } as unknown as Installation;
  return { home, inst, m };
}

const scan = (inst: Installation): Promise<Inventory> => pi.scan(inst, t.ctx, () => {});

/** The attribution of a fresh scan whose walk asks the disk for everything itself. */
async function ownWalk(inst: Installation): Promise<{ a: unknown; items: Inventory['items'] }> {
  const inv = await scan(inst);
  delete inv.walkLog;
  const a = await attributeInventory(inst, inv);
  return { a, items: inv.items };
}

describe('pi scan → attribution walk log', () => {
  it('the walk stats no session file again and gives the figures and rows of its own walk', async () => {
    const { inst, m } = store();
    const inv = await scan(inst);
    expect(inv.walkLog).toBeDefined();
    const { value: a, paths } = await lstatsDuring(() => attributeInventory(inst, inv));
    const own = await ownWalk(inst);
    expect(a).toEqual(own.a);
    expect(inv.items).toEqual(own.items);
    expect(a).toMatchObject({ unrecognizedFiles: 1, notWalked: [] });
    const files = new Set(m.sessions.map((s) => s.file));
    expect(paths.filter((p) => files.has(p))).toEqual([]);
    // The buckets themselves are checked against the disk (that is what proves their listing still holds).
    for (const s of m.sessions) expect(paths).toContain(dirname(s.file));
    expect(inv.walkLog).toBeUndefined();
  });

  it('a session added, removed or renamed, a bucket replaced after the scan: counted as the disk has it now', async () => {
    const cases: [string, (m: PiFixtureManifest, home: string) => void][] = [
      ['file added', (m) => writeFileSync(join(dirname(m.sessions[1]!.file), 'late.jsonl'), 'x'.repeat(9000))],
      ['session removed', (m) => rmSync(m.sessions[2]!.file)],
      ['session renamed', (m) => renameSync(m.sessions[3]!.file, `${m.sessions[3]!.file}.bak`)],
      [
        'bucket replaced',
        (m, home) => {
          const b = dirname(m.sessions[0]!.file);
          renameSync(b, join(home, 'moved-away'));
          mkdirSync(b);
          writeFileSync(join(b, 'other.jsonl'), 'o'.repeat(12_000));
        },
      ],
    ];
    for (const [name, change] of cases) {
      const { home, inst, m } = store();
      const inv = await scan(inst);
      // The same scan's rows without the log: that walk asks the disk as it is after the change.
      const rows: Inventory = { ...inv, items: [...inv.items], warnings: [...inv.warnings] };
      delete rows.walkLog;
      change(m, home);
      const a = await attributeInventory(inst, inv);
      const own = await attributeInventory(inst, rows);
      expect(a, name).toEqual(own);
      expect(inv.items, name).toEqual(rows.items);
      t.cleanup();
    }
  });

  it('a session file that grew in an unchanged bucket counts at the size its row was given', async () => {
    const { inst, m } = store();
    const before = await ownWalk(inst);
    const inv = await scan(inst);
    writeFileSync(m.sessions[4]!.file, 'g'.repeat(200_000), { flag: 'a' });
    expect(await attributeInventory(inst, inv)).toEqual(before.a);
    expect(inv.items).toEqual(before.items);
  });
});
