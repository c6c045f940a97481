// `plan --empty` on pi: a session holding no user message (header only, or
// named with nothing said) matches; one with a user message, or one too long
// to be read whole, never does.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
});
afterEach(() => t.cleanup());

const OLD = '2026-01-01T00:00:00.000Z';
function session(id: string, lines: object[]): void {
  const dir = join(t.env.PI_CODING_AGENT_DIR!, 'sessions', '--home-u-src-app--');
  mkdirSync(dir, { recursive: true });
  const header = { type: 'session', version: 3, id, timestamp: OLD, cwd: '/home/u/src/app' };
  writeFileSync(join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`), [header, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
}
const user = (text: string): object => ({
  type: 'message',
  id: 'm1',
  parentId: null,
  timestamp: OLD,
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.parse(OLD) },
});
const named = (name: string): object => ({ type: 'session_info', id: 'i1', parentId: null, timestamp: OLD, name });

describe('retention --empty on pi', () => {
  it('matches exactly the sessions without a user message, named or not', () => {
    const ids = [
      '0190a000-0000-7000-8000-000000000001',
      '0190a000-0000-7000-8000-000000000002',
      '0190a000-0000-7000-8000-000000000003',
      '0190a000-0000-7000-8000-000000000004',
    ];
    session(ids[0]!, []);
    session(ids[1]!, [named('renamed but empty')]);
    session(ids[2]!, [user('fix the build')]);
    session(ids[3]!, [named('named and used'), user('write the docs')]);
    const r = spawnSync(process.execPath, [CLI, 'plan', '--agent', 'pi', '--empty', '--json'], { env: t.env, encoding: 'utf8', input: '' });
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { items: { id: string }[]; notes: string[] };
    expect(plan.items.map((i) => i.id).sort()).toEqual([`session:${ids[0]}`, `session:${ids[1]}`]);
    expect(plan.notes.join(' ')).not.toMatch(/cannot|does not record/i);
  });
});
