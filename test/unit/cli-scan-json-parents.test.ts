// `scan --json` as the README's contract says it (#27 part 6), through the
// real binary: an orphan (its parent gone) keeps `parentId: null` — it names
// only listed sessions — and says the parent its agent recorded in
// `recordedParentId`; titles are the display form (escape sequences and
// control characters removed) while paths are exact, every control character
// in them written as a \u escape.

import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/constants.js';
import { buildStore, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let m: PiFixtureManifest;
beforeEach(() => {
  t = makeTempEnv('cleanerx-scan-json-');
  m = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 3,
    forkRate: 1,
    now: Date.now(),
    cwdRoot: join(t.env.HOME!, 'src'),
  });
});
afterEach(() => t.cleanup());

interface JsonSession {
  id: string;
  title: string;
  parentId: string | null;
  recordedParentId: string | null;
  paths: string[];
}

const scan = (agent = 'pi'): { stdout: string; sessions: JsonSession[] } => {
  const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', agent, '--json'], { env: t.env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return { stdout: r.stdout, sessions: (JSON.parse(r.stdout) as { agents: { sessions: JsonSession[] }[] }).agents[0]!.sessions };
};

it('an orphan keeps parentId null and names its recorded parent in recordedParentId', () => {
  const fork = m.sessions.find((s) => s.kind === 'fork' && s.parentId)!;
  expect(fork).toBeTruthy();
  const parent = m.sessions.find((s) => s.id === fork.parentId)!;
  const listed = scan().sessions;
  // Listed parent: both fields name it; a root has neither.
  expect(listed.find((s) => s.id === fork.id)).toMatchObject({ parentId: parent.id, recordedParentId: parent.id });
  expect(listed.find((s) => s.id === parent.id)).toMatchObject({ parentId: null, recordedParentId: null });

  rmSync(parent.file);
  const orphan = scan().sessions.find((s) => s.id === fork.id)!;
  expect(orphan.parentId).toBeNull();
  expect(orphan.recordedParentId).toBe(parent.id);
});

it('titles come out in their display form; paths exact, control characters as \\u escapes', () => {
  const bucket = join(t.env.PI_CODING_AGENT_DIR!, 'sessions', '--tmp-x--');
  mkdirSync(bucket, { recursive: true });
  const id = '0199aaaa-0000-7000-8000-000000000001';
  const file = join(bucket, `2026-01-01T00-00-00-000Z_${id}\u001b[31m.jsonl`);
  writeFileSync(
    file,
    [
      JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/tmp/x' }),
      JSON.stringify({
        type: 'message',
        message: { role: 'user', content: [{ type: 'text', text: 'red \u001b[31mtitle\u001b[0m with a bell\u0007' }], timestamp: 1767225601000 },
        id: '00000001',
        parentId: null,
        timestamp: '2026-01-01T00:00:01.000Z',
      }),
    ].join('\n') + '\n',
  );
  const { stdout, sessions } = scan();
  const s = sessions.find((x) => x.id === id)!;
  expect(s.title).toBe('red title with a bell');
  expect(s.paths).toEqual([file]);
  // In the text itself: the escape character of the path as \u001b, none raw anywhere.
  expect(stdout).toContain('_0199aaaa-0000-7000-8000-000000000001\\u001b[31m.jsonl');
  expect(stdout.endsWith('}\n')).toBe(true);
  expect(stdout.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f]/);
});

describe('OpenCode', () => {
  let template: Template;
  beforeAll(async () => {
    template = await makeTemplate();
  }, 180_000);
  afterAll(() => template?.cleanup());

  it("an orphan's recordedParentId is the parent_id OpenCode records", () => {
    const oc = buildStore(t, template, { orphans: 2 });
    const orphans = oc.sessions.filter((s) => s.kind === 'orphan');
    expect(orphans.length).toBe(2);
    const listed = scan('opencode').sessions;
    for (const o of orphans)
      expect(
        listed.find((s) => s.id === o.id),
        o.id,
      ).toMatchObject({ parentId: null, recordedParentId: o.parentId });
    const child = oc.sessions.find((s) => s.kind === 'child')!;
    expect(listed.find((s) => s.id === child.id)).toMatchObject({ parentId: child.parentId, recordedParentId: child.parentId });
  }, 60_000);
});
