// Codex as a user meets it, with the real `codex` 0.171.0 on PATH: mark a
// root thread, review (Codex's own delete route, its subagents listed, no
// backup because Codex has no import, irreversible), type delete — Codex's
// own listing no longer has the root and its subagents, and still has every
// other thread.

import { dirname } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { buildStore, CODEX_BIN, rawClient, serverListing } from '../helpers/codex.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
afterEach(() => {
  t?.cleanup();
});

it(
  'mark a root thread → review says irreversible, no backup → delete through Codex → exactly its subtree is gone',
  async () => {
    t = makeTempEnv('cleanerx-codex-journey-');
    const m = buildStore(t, { threads: 4, subagentRate: 1, archivedRate: 0, malformed: false, extras: false });
    targetAgent(t, 'codex');
    const env = { ...t.env, PATH: `${dirname(CODEX_BIN)}:/usr/bin:/bin` };

    pty = openPty({ args: [], env: env, cols: 110, rows: 32 });
    await pty.waitFor('Sessions (', 90_000);
    pty.press('2');
    await pty.waitForLine(/^\[ \]   /, 30_000);
    pty.press('j', KEYS.space);
    await pty.waitFor(/\d+ marked · /);
    const marked = pty.lines().find((l) => l.startsWith('[x]'))!;
    expect(marked, pty.text()).toBeTruthy();

    pty.press('x');
    await pty.waitFor('Review cleanup');
    await pty.waitFor("Codex's own delete route");
    await pty.waitFor('Codex has no import route');
    await pty.waitFor('Irreversible');
    // No backup can be turned on.
    pty.press('b');
    await pty.waitFor(/Backup: not offered/);
    expect(pty.text()).not.toContain('Backup: on');
    pty.type('delete');
    pty.press(KEYS.enter);
    await pty.waitFor('Cleanup complete', 120_000);
    pty.press(KEYS.enter);
    await pty.waitForNot('Cleanup complete');
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);

    const c = await rawClient(t);
    try {
      const left = new Set((await serverListing(c)).map((x) => x.id));
      const gone = m.threads.filter((x) => !left.has(x.id));
      const root = gone.find((x) => x.parentId === null);
      expect(root, `gone: ${gone.map((x) => x.id).join(', ')}`).toBeTruthy();
      expect(marked).toContain((root!.name ?? root!.firstMessage).slice(0, 16));
      // Gone: exactly the root and its subagents (transitively); everything else still listed.
      const scope = new Set([root!.id]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const x of m.threads) if (x.parentId && scope.has(x.parentId) && !scope.has(x.id)) grew = Boolean(scope.add(x.id));
      }
      expect(scope.size).toBeGreaterThan(1);
      expect(gone.map((x) => x.id).sort()).toEqual([...scope].sort());
    } finally {
      await c.close();
    }
  },
  budget(400_000),
);
