// The reference of codex-scan-2k: a bare App Server pager as its own
// process. It starts `codex app-server` (argv[2]), initializes, pages every
// thread (live and archived, every source kind and provider, 200 a page as
// cleanerx asks)
// and prints them as one JSON array: what a user's own script would do to
// list the store, no more (no sizes, no state DB, no checks).

import { spawn } from 'node:child_process';

const KINDS = ['cli', 'vscode', 'exec', 'appServer', 'subAgent', 'subAgentReview', 'subAgentCompact', 'subAgentThreadSpawn', 'subAgentOther', 'unknown'];
const child = spawn(process.argv[2], ['app-server'], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, RUST_LOG: 'error' } });
const waiting = new Map();
let buf = '';
let next = 1;
child.stdout.setEncoding('utf8');
child.stdout.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    } else if (m.id !== undefined && m.method) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } })}\n`);
  }
});
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });

await request('initialize', { clientInfo: { name: 'bench', title: null, version: '0' }, capabilities: { experimentalApi: true } });
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'initialized' })}\n`);
const threads = [];
for (const archived of [false, true]) {
  let cursor = null;
  do {
    const res = await request('thread/list', { limit: 200, archived, modelProviders: [], sourceKinds: KINDS, ...(cursor ? { cursor } : {}) });
    threads.push(...res.data);
    cursor = res.nextCursor;
  } while (cursor);
}
// Codex exits when its input ends; waited for, so its CPU counts in this process tree (as cleanerx's does).
const exited = new Promise((r) => child.on('exit', r));
child.stdin.end();
const timer = setTimeout(() => child.kill(), 5000);
await exited;
clearTimeout(timer);
process.stdout.write(`${JSON.stringify(threads)}\n`);
