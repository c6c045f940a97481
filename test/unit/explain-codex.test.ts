// `cleanerx explain` on a generated Codex rollout (issue #29 part 5): the
// real binary reports each record type's share of the file within 1% of the
// shares this test computes itself from the lines it wrote — duplicated
// command output (the model's function_call_output and the exec_command_end
// event copy), compaction history with an image, reasoning, images — with
// hostile lines among them (a line past the 8 MiB head bound, malformed
// JSON, escape sequences) counted, never a crash; nothing is changed.

import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { buildStore, CODEX_BIN } from '../helpers/codex.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree } from '../helpers/tree-hash.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
  // The pinned Codex lists its threads (its App Server), as a user's scan does.
  t.env.PATH = `${dirname(CODEX_BIN)}:/usr/bin:/bin`;
});
afterEach(() => t.cleanup());

const at = (n: number): string => new Date(Date.UTC(2026, 10, 20, 10, 0, n)).toISOString();
const rec = (n: number, type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: at(n), type, payload });

describe('explain --agent codex', () => {
  it('reports the shares of a rollout with duplicated output within 1%', () => {
    const m = buildStore(t, { threads: 2, subagentRate: 0 });
    const thread = m.threads[0]!;
    const original = readFileSync(thread.rollout, 'utf8').split('\n').filter(Boolean);
    // The fixture's own lines (session_meta, the first messages) stay: they are the "rest".
    const lines: { kind: string; text: string }[] = original.map((text) => ({ kind: 'rest', text }));
    const output = 'x'.repeat(40_000) + '\u001b]52;c;ZXZpbA==\u0007';
    for (let i = 0; i < 30; i++) {
      const callId = `call_${i}`;
      lines.push({
        kind: 'rest',
        text: rec(100 + i, 'response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: callId }),
      });
      lines.push({ kind: 'commandOutput', text: rec(100 + i, 'response_item', { type: 'function_call_output', call_id: callId, output }) });
      lines.push({
        kind: 'commandOutputEvents',
        text: rec(100 + i, 'event_msg', { type: 'exec_command_end', call_id: callId, stdout: output, aggregated_output: output, exit_code: 0 }),
      });
      lines.push({ kind: 'reasoning', text: rec(100 + i, 'response_item', { type: 'reasoning', summary: [], encrypted_content: 'r'.repeat(3000) }) });
    }
    const image = { type: 'input_image', image_url: `data:image/png;base64,${'A'.repeat(200_000)}` };
    lines.push({ kind: 'images', text: rec(200, 'response_item', { type: 'message', role: 'user', content: [image] }) });
    lines.push({
      kind: 'compaction',
      text: rec(201, 'compacted', { message: 'summary', replacement_history: [{ type: 'message', role: 'user', content: [image] }] }),
    });
    // Past the 8 MiB head bound: told by its head alone, its bytes still counted.
    lines.push({
      kind: 'commandOutput',
      text: rec(202, 'response_item', { type: 'function_call_output', call_id: 'big', output: 'y'.repeat(9 * 1024 * 1024) }),
    });
    lines.push({
      kind: 'unreadable',
      text: '{"timestamp":"2026-11-20T10:03:00Z","type":"response_item","payload":{"type":"function_call_output","output":"cut',
    });
    lines.push({ kind: 'unreadable', text: 'not json \u001b[2J at all' });
    writeFileSync(thread.rollout, lines.map((l) => `${l.text}\n`).join(''));

    const size = statSync(thread.rollout).size;
    const expected = new Map<string, number>();
    for (const l of lines) expected.set(l.kind, (expected.get(l.kind) ?? 0) + Buffer.byteLength(l.text) + 1);
    // Codex's App Server writes its own databases when the scan starts it; the sessions are what explain reads.
    const sessions = join(t.env.CODEX_HOME!, 'sessions');
    const before = hashTree(sessions);

    const r = spawnSync(process.execPath, [CLI, 'explain', '--agent', 'codex', thread.id, '--json'], { env: t.env, encoding: 'utf8', input: '' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { totalBytes: number; buckets: { kind: string; bytes: number; share: number }[] };
    expect(report.totalBytes).toBe(size);
    const share = (kind: string): number => report.buckets.find((b) => b.kind === kind)?.share ?? 0;
    for (const kind of ['commandOutput', 'commandOutputEvents', 'reasoning', 'images', 'compaction', 'unreadable']) {
      const want = expected.get(kind)! / size;
      expect(Math.abs(share(kind) - want), `${kind}: ${share(kind)} vs ${want}`).toBeLessThan(0.01);
    }
    // The two copies of the command output are the bulk of this file, as in openai/codex #41269.
    expect(share('commandOutput') + share('commandOutputEvents')).toBeGreaterThan(0.5);
    expect(hashTree(sessions)).toEqual(before);

    const text = spawnSync(process.execPath, [CLI, 'explain', '--agent', 'codex', thread.id], { env: t.env, encoding: 'utf8', input: '' });
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/command output, event copy\s+\S+ \S+\s+\d+%/);
    expect(text.stdout).toContain('2 lines could not be read as JSON records');
    // eslint-disable-next-line no-control-regex
    expect(text.stdout).not.toMatch(/\u001b/);
  }, 180_000);

  it('names an unknown id in one sentence, exit 2', () => {
    buildStore(t, { threads: 1, subagentRate: 0 });
    const r = spawnSync(process.execPath, [CLI, 'explain', '--agent', 'codex', 'nope'], { env: t.env, encoding: 'utf8', input: '' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('cleanerx: No codex session has the id nope; run `cleanerx scan --agent codex` to list them.');
  }, 120_000);
});
