// Residue proof against the real `opencode` 1.18.33, through the real
// `cleanerx clean --json`: OpenCode's own delete removes a session's rows
// (session, message, part, todo, events) but leaves its
// `storage/session_diff/<id>.json`; cleanerx's verify step reports that
// session PARTIAL naming the file and offering it as the follow-up item the
// next scan shows, and a session without one COMPLETE.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_DIFF_ITEM_ID } from '../../src/adapters/opencode/leftovers.js';
import { CLI } from '../helpers/constants.js';
import { buildStore, dataDir, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

function cleanerx(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1' };
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: budget(240_000), killSignal: 'SIGKILL' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('residue proof (OpenCode)', () => {
  it(
    'the session_diff file OpenCode leaves is PARTIAL with a follow-up item; a session without one is COMPLETE',
    async () => {
      t = makeTempEnv('cleanerx-oc-res-');
      const m = buildStore(t, template, { messagesPerSession: 2 });
      const leaves = m.sessions.filter((s) => s.kind === 'root' && m.descendants.get(s.id)!.length === 0);
      expect(leaves.length).toBeGreaterThanOrEqual(2);
      const [withDiff, clean] = leaves;
      const diffs = join(dataDir(t), 'storage', 'session_diff');
      mkdirSync(diffs, { recursive: true });
      const diff = join(diffs, `${withDiff!.id}.json`);
      writeFileSync(diff, '[{"file":"a.ts","additions":1,"deletions":0}]\n');

      const r = cleanerx(['clean', '--agent', 'opencode', '--id', withDiff!.id, clean!.id, '--yes', '--json']);
      expect(r.status, r.stderr + r.stdout).toBe(0);
      const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{"formatVersion"'))) as { residue: { id: string; verdict: string; surfaces: unknown[] }[] };
      const byId = new Map(report.residue.map((x) => [x.id, x]));
      expect(byId.get(`session:${clean!.id}`)).toEqual({ id: `session:${clean!.id}`, verdict: 'complete', surfaces: [] });
      expect(byId.get(`session:${withDiff!.id}`)).toEqual({
        id: `session:${withDiff!.id}`,
        verdict: 'partial',
        surfaces: [{ surface: 'sessionDiff', path: diff, why: 'followUp', followUpId: SESSION_DIFF_ITEM_ID }],
      });
      // The human lines say it too (beside the JSON, on the other stream).
      const human = r.stdout + r.stderr;
      expect(human).toContain('Residue check: 1 complete, 1 partial.');
      expect(human).toContain('session_diff file (offered as an item now)');
      expect(existsSync(diff)).toBe(true);

      // The next scan shows the follow-up item holding the file.
      const scan = cleanerx(['scan', '--agent', 'opencode', '--json']);
      expect(scan.status, scan.stderr).toBe(0);
      expect(scan.stdout).toContain(SESSION_DIFF_ITEM_ID);
    },
    budget(300_000),
  );
});
