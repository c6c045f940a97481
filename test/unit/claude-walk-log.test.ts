// The Claude scan hands its listings of projects/, each bucket and the
// per-session roots, with its fstat of every transcript and its walks of the
// per-session entries, to the attribution walk (Inventory.walkLog): the walk
// then stats no transcript or per-session file again and still gives the
// figures and rows of a walk of its own, on a home left alone and on one
// changed between the scan and the walk.

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import type { Installation, Inventory } from '../../src/engine/core/model.js';
import { attributeInventory } from '../../src/engine/inventory/attribution.js';
import { inst } from '../helpers/attribution-fixtures.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const claude = ADAPTERS.find((a) => a.kind === 'claude')!;

function store(): { home: string; inst: Installation; m: ClaudeFixtureManifest } {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  const m = buildClaudeFixture({ configDir: home, projects: 3, sessionsPerProject: 5, seed: 5, sidecars: true, memory: true, config: true });
  return { home, inst: inst(home, 'claude'), m };
}

const scan = (inst: Installation): Promise<Inventory> => claude.scan(inst, t.ctx, () => {});

/** Copies of a scan's rows without its log: an attribution of these asks the disk for everything itself. */
function withoutLog(inv: Inventory): Inventory {
  const rows: Inventory = { ...inv, items: [...inv.items], warnings: [...inv.warnings] };
  delete rows.walkLog;
  return rows;
}

describe('Claude scan → attribution walk log', () => {
  it('the walk stats no transcript or per-session file again and gives the figures and rows of its own walk', async () => {
    const { home, inst, m } = store();
    const inv = await scan(inst);
    const own = withoutLog(inv);
    const { value: a, paths } = await lstatsDuring(() => attributeInventory(inst, inv));
    expect(a).toEqual(await attributeInventory(inst, own));
    expect(inv.items).toEqual(own.items);
    const transcripts = new Set(m.sessions.map((s) => s.file));
    expect(paths.filter((p) => transcripts.has(p))).toEqual([]);
    // Per-session files (debug/<id>.txt) were stat'ed by the scan's walks inside listings it took.
    const debug = inv.sessions.flatMap((s) => s.paths).filter((p) => p.startsWith(join(home, 'debug') + '/'));
    expect(debug.length).toBeGreaterThan(0);
    expect(paths.filter((p) => debug.includes(p))).toEqual([]);
    // The listed folders themselves are checked against the disk: that is what proves their listing still holds.
    for (const s of m.sessions) expect(paths).toContain(dirname(s.file));
    expect(paths).toContain(join(home, 'projects'));
  });

  it('a transcript added or removed, a bucket replaced, a per-session file added after the scan: counted as the disk has it now', async () => {
    const cases: [string, (m: ClaudeFixtureManifest, home: string) => void][] = [
      ['file added to a bucket', (m) => writeFileSync(join(dirname(m.sessions[1]!.file), 'late.txt'), 'x'.repeat(9000))],
      ['transcript removed', (m) => rmSync(m.sessions[2]!.file)],
      [
        'bucket replaced',
        (m, home) => {
          const b = dirname(m.sessions[0]!.file);
          renameSync(b, join(home, 'moved-away'));
          mkdirSync(b);
          writeFileSync(join(b, 'other.jsonl'), 'o'.repeat(12_000));
        },
      ],
      ['debug file added', (_m, home) => writeFileSync(join(home, 'debug', 'late.txt'), 'd'.repeat(7000))],
    ];
    for (const [name, change] of cases) {
      const { home, inst, m } = store();
      const inv = await scan(inst);
      const rows = withoutLog(inv);
      change(m, home);
      const a = await attributeInventory(inst, inv);
      expect(a, name).toEqual(await attributeInventory(inst, rows));
      expect(inv.items, name).toEqual(rows.items);
      t.cleanup();
    }
  });
});
