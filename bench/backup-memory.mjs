// backup-memory: peak RSS of backup, verify and restore (issue #26) for two
// stores, each step in a child process of its own (lib/backup-memory-child.mjs,
// cleanerx's real code from dist/), against 300 MB:
//   small  200,000 small pi session files (200 folders of 1,000, 64–1,000 bytes)
//   large  a 4 GiB sparse file (ftruncate: no disk) and a 2 GiB file
// Everything lives in one temp dir (HOME and every XDG_* / agent variable
// inside it), removed at the end; the stores are built afresh each run.

import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBenchTools } from './lib/system-tools.mjs';
import { BENCH, fmtBytes, isolatedEnvFor, timeNode } from './lib/util.mjs';

export const name = 'backup-memory';
export const target = null;
const RSS_TARGET_MB = 300;
const SMALL = { folders: 200, perFolder: 1000 };
const SPARSE_BYTES = 4 * 1024 ** 3;
const LARGE_BYTES = 2 * 1024 ** 3;

function buildSmall(agentDir) {
  const sessions = join(agentDir, 'sessions');
  const line = Buffer.from(`${JSON.stringify({ type: 'message', message: { role: 'user', content: 'a small session line' } })}\n`);
  for (let d = 0; d < SMALL.folders; d++) {
    const dir = join(sessions, `--home-bench-project-${String(d).padStart(3, '0')}--`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < SMALL.perFolder; f++) {
      const n = 1 + ((d * 7 + f * 13) % 12); // 64–1,000 bytes
      writeFileSync(join(dir, `2026-01-01T10-00-00-000Z_${String(f).padStart(4, '0')}.jsonl`), line.toString().repeat(n), { mode: 0o600 });
    }
  }
  return SMALL.folders * SMALL.perFolder;
}

function buildLarge(agentDir) {
  const dir = join(agentDir, 'sessions', '--home-bench-large--');
  mkdirSync(dir, { recursive: true });
  // A hole throughout: what ftruncate makes, no block on disk.
  const sparse = openSync(join(dir, '2026-01-01T10-00-00-000Z_sparse.jsonl'), 'w', 0o600);
  try {
    ftruncateSync(sparse, SPARSE_BYTES);
  } finally {
    closeSync(sparse);
  }
  // Real blocks: a 1 MiB pattern (varied enough that zstd does work) written 2,048 times.
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((Math.imul(i, 2654435761) >>> 7) & 0xffff, i);
  const fd = openSync(join(dir, '2026-01-01T10-00-00-000Z_large.jsonl'), 'w', 0o600);
  try {
    for (let done = 0; done < LARGE_BYTES; done += block.length) writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
  return 2;
}

export async function run({ log }) {
  const bin = ensureBenchTools([['age-keygen', 'age']]);
  const work = mkdtempSync(join(tmpdir(), 'cleanerx-bench-backup-memory-'));
  const child = join(BENCH, 'lib', 'backup-memory-child.mjs');
  const figures = [];
  const lines = [];
  const runs = [];
  try {
    const env = await isolatedEnvFor(work);
    const keyTxt = join(work, 'key.txt');
    spawnSync(bin['age-keygen'], ['-o', keyTxt], { stdio: 'ignore' });
    readFileSync(keyTxt, 'utf8'); // fails loudly when age-keygen did not write it
    const step = async (args) => {
      const r = await timeNode([child, ...args], { env, cwd: work, capture: true, timeoutMs: 1_800_000 });
      return JSON.parse(r.stdout);
    };
    for (const store of [
      { label: '200k small files', build: buildSmall },
      { label: '4 GiB sparse + 2 GiB', build: buildLarge },
    ]) {
      const home = join(work, 'store');
      const agentDir = join(home, '.pi', 'agent');
      const t0 = Date.now();
      const files = store.build(agentDir);
      log(`  ${store.label}: ${files} file(s) built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const cxb = join(work, 'b.cxb');
      const root = join(work, 'restored');
      mkdirSync(root);
      const steps = {
        backup: await step(['backup', agentDir, cxb, keyTxt]),
        verify: await step(['verify', cxb, keyTxt]),
        restore: await step(['restore', cxb, keyTxt, root, work]),
      };
      for (const [op, r] of Object.entries(steps)) {
        if (r.files !== files) throw new Error(`${store.label}: ${op} handled ${r.files} files of ${files}`);
        const mb = r.maxRssBytes / 1e6;
        const ok = mb <= RSS_TARGET_MB;
        const line = `${store.label.padEnd(22)} ${op.padEnd(8)} peak RSS ${mb.toFixed(0).padStart(4)} MB  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${ok ? 'pass' : 'FAIL'} (≤ ${RSS_TARGET_MB} MB)`;
        log(`  ${line}`); // as it comes: the large store takes minutes more
        lines.push(line);
        figures.push({ label: `peak RSS, ${op} of ${store.label}`, value: mb, unit: 'MB', op: '≤', target: RSS_TARGET_MB });
        runs.push(r.ms);
      }
      lines.push(`${''.padEnd(22)} archive ${fmtBytes(steps.backup.archiveBytes)} for ${fmtBytes(steps.backup.bytes)}`);
      rmSync(home, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
      rmSync(cxb, { force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const worst = Math.max(...figures.map((f) => f.value));
  return { name, ours: null, reference: null, ratio: null, target, figures, runs: { ours: runs, reference: [] }, extra: { lines, worstPeakRssMB: worst } };
}
