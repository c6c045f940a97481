// backup-1g: an encrypted, verified backup of ~1 GB of pi session files
// (a mix of compressible JSONL-like text and random bytes) through
// cleanerx's real path — dist/backup/archive.js writeArchive, then
// readArchive to verify, in a child process whose peak RSS is measured —
// against `tar -cf - <files> | zstd -3 | age -r <recipient> > out` on the
// same files in the same run. Verify (readArchive alone: decrypt,
// decompress, SHA-256 of every payload) is also set against
// `age -d | zstd -d | tar -t` of the reference archive (which checks no
// hashes: a lower bound for a verify). Then restore as `backups restore
// --yes` does it: one real restoreArchive into an empty root that hands over
// its plan (what the dry run prints) once everything is staged, hash-checked
// and preflighted, against `age -d -i key | zstd -d | tar -x`, with the CPU
// time (user + system) of each side beside the wall time; once, the Backups
// screen's way too (the dry-run check, then the restore, which reuses the
// check's hashes).
// The store is built once into bench/.stores/backup-1g (reused by marker).

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { ensureBenchTools } from './lib/system-tools.mjs';
import { BENCH, fmtBytes, median, ROOT, STORES } from './lib/util.mjs';

export const name = 'backup-1g';
/** Time ratio ours/reference: ≤ 2× is ours ≥ 0.5× the reference's throughput. */
export const target = 2;
const RSS_TARGET = 300 * 1024 * 1024;
const RUNS = 3;

const PARAMS = {
  version: 2,
  buckets: 16,
  textFiles: 96, // JSONL-like, ~6 MiB each
  textBytes: 6 * 1024 * 1024,
  randomFiles: 40, // incompressible, ~10 MiB each
  randomBytes: 10 * 1024 * 1024,
  smallFiles: 400, // small sessions, 1–60 KiB
  seed: 1_000_000_007,
};

/** The fixtures' words and some filler ones: text that compresses like a transcript. */
const FILLER = ['the', 'a', 'of', 'to', 'in', 'function', 'return', 'const', 'await', 'error'];
let vocabulary = FILLER;

/** A transcript-like JSONL line: repetitive keys, varied words and ids. */
function jsonlLine(r) {
  const words = Array.from({ length: 8 + Math.floor(r() * 40) }, () => vocabulary[Math.floor(r() * vocabulary.length)]).join(' ');
  const id = Math.floor(r() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
  return (
    JSON.stringify({
      type: 'message',
      id,
      parentId: id.split('').reverse().join(''),
      timestamp: new Date(1_780_000_000_000 + Math.floor(r() * 1e10)).toISOString(),
      message: { role: r() < 0.5 ? 'user' : 'assistant', content: [{ type: 'text', text: words }] },
    }) + '\n'
  );
}

let pool = null;
/** `bytes` of JSONL drawn from a pool of 20,000 generated lines (building every line afresh is ~10× slower). */
function jsonlChunk(r, bytes) {
  pool ??= Array.from({ length: 20_000 }, () => jsonlLine(r));
  const lines = [];
  let n = 0;
  while (n < bytes) {
    const line = pool[Math.floor(r() * pool.length)];
    lines.push(line);
    n += line.length;
  }
  return lines.join('');
}

/** Fast deterministic incompressible bytes (a hash chain: stable across runs, unlike randomBytes). */
function randomChunk(seed, bytes) {
  const out = Buffer.allocUnsafe(bytes);
  let block = createHash('sha512').update(String(seed)).digest();
  for (let off = 0; off < bytes; off += 64) {
    block = createHash('sha512').update(block).digest();
    block.copy(out, off, 0, Math.min(64, bytes - off));
  }
  return out;
}

function writeLarge(path, produce, total) {
  const fd = openSync(path, 'w', 0o600);
  try {
    for (let done = 0; done < total; ) {
      const b = produce(Math.min(1 << 20, total - done));
      writeSync(fd, b);
      done += b.length;
    }
  } finally {
    closeSync(fd);
  }
}

async function ensureStore(log) {
  const key = createHash('sha256').update(JSON.stringify(PARAMS)).digest('hex').slice(0, 16);
  const root = join(STORES, 'backup-1g');
  const marker = join(root, '.complete');
  const agentDir = join(root, 'home', '.pi', 'agent');
  if (existsSync(marker)) {
    try {
      const m = JSON.parse(readFileSync(marker, 'utf8'));
      if (m.key === key) return { root, agentDir, files: m.files, bytes: m.bytes, reused: true };
    } catch {
      /* rebuild */
    }
  }
  log(`  building the ~1 GB pi store in ${root} (once)…`);
  const t0 = Date.now();
  const tmp = `${root}.building-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const sessions = join(tmp, 'home', '.pi', 'agent', 'sessions');
  const { rng, WORDS } = await import(join(ROOT, 'dist', 'adapters', 'shared', 'fixture-rng.js'));
  const r = rng(PARAMS.seed);
  vocabulary = [...WORDS, ...FILLER];
  const bucket = (i) => {
    const d = join(sessions, `--home-bench-src-project-${i % PARAMS.buckets}--`);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const stamp = (i) => `2026-0${1 + (i % 9)}-1${i % 10}T10-00-00-000Z`;
  let files = 0;
  let bytes = 0;
  for (let i = 0; i < PARAMS.textFiles; i++) {
    const p = join(bucket(i), `${stamp(i)}_t${String(i).padStart(4, '0')}.jsonl`);
    writeLarge(p, (n) => Buffer.from(jsonlChunk(r, n)), PARAMS.textBytes);
    files++;
    bytes += statSync(p).size;
  }
  for (let i = 0; i < PARAMS.randomFiles; i++) {
    const p = join(bucket(i + 3), `${stamp(i)}_r${String(i).padStart(4, '0')}.jsonl`);
    let part = 0;
    writeLarge(p, (n) => randomChunk(`${PARAMS.seed}:${i}:${part++}`, n), PARAMS.randomBytes);
    files++;
    bytes += statSync(p).size;
  }
  for (let i = 0; i < PARAMS.smallFiles; i++) {
    const p = join(bucket(i + 7), `${stamp(i)}_s${String(i).padStart(4, '0')}.jsonl`);
    writeFileSync(p, jsonlChunk(r, 1024 + Math.floor(r() * 60 * 1024)), { mode: 0o600 });
    files++;
    bytes += statSync(p).size;
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(STORES, { recursive: true });
  renameSync(tmp, root);
  writeFileSync(marker, JSON.stringify({ key, params: PARAMS, files, bytes, builtAt: new Date().toISOString() }) + '\n');
  log(`  built ${files} files, ${fmtBytes(bytes)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { root, agentDir, files, bytes, reused: false };
}

/** Runs a command to completion; resolves with wall ms and stdout. */
function timed(cmd, args, { cwd, env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited ${code ?? signal}: ${err.trim().slice(0, 500)}`));
      else resolve({ ms, stdout: out, stderr: err });
    });
  });
}

/** `/usr/bin/time -v` around a shell pipeline: wall ms and the largest child's peak RSS (when GNU time is there). */
async function timedShell(script, cwd) {
  const gnuTime = existsSync('/usr/bin/time');
  const args = gnuTime ? ['-v', '/bin/bash', '-o', 'pipefail', '-c', script] : ['-o', 'pipefail', '-c', script];
  const r = await timed(gnuTime ? '/usr/bin/time' : '/bin/bash', args, { cwd });
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const secs = (label) => Number(new RegExp(`${label} time \\(seconds\\): ([0-9.]+)`).exec(r.stderr)?.[1] ?? NaN);
  const cpuMs = (secs('User') + secs('System')) * 1000;
  return { ms: r.ms, maxRssBytes: m ? Number(m[1]) * 1024 : null, cpuMs: Number.isFinite(cpuMs) ? cpuMs : null };
}

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function treeBytes(dir) {
  const files = listFiles(dir);
  return { files: files.length, bytes: files.reduce((a, f) => a + statSync(f).size, 0) };
}

const mbps = (bytes, ms) => bytes / (1024 * 1024) / (ms / 1000);

export async function run({ log }) {
  // The reference pipeline's tools, installed like the tests' (or named in one line).
  const bin = ensureBenchTools([
    ['age', 'age'],
    ['age-keygen', 'age'],
    ['zstd', 'zstd'],
    ['tar', 'tar'],
  ]);
  const [age, ageKeygen, zstd, tar] = [bin.age, bin['age-keygen'], bin.zstd, bin.tar];
  const store = await ensureStore(log);
  const work = mkdtempSync(join(STORES, 'backup-1g-work-'));
  const child = join(BENCH, 'lib', 'backup-child.mjs');
  try {
    const keyTxt = join(work, 'key.txt');
    await timed(ageKeygen, ['-o', keyTxt]);
    const recipient = /public key: (age1[0-9a-z]+)/.exec(readFileSync(keyTxt, 'utf8'))[1];
    const files = listFiles(join(store.agentDir, 'sessions')).map((f) => relative(store.agentDir, f));
    writeFileSync(join(work, 'files.txt'), files.join('\n') + '\n');
    const bytes = store.bytes;
    log(`  ${files.length} files, ${fmtBytes(bytes)}${store.reused ? ' (store reused)' : ''}`);

    const ours = [];
    const reference = [];
    const refVerify = [];
    const oursRestore = [];
    const checked = [];
    const refRestore = [];
    const node = (args) => timed(process.execPath, [child, ...args], { cwd: work, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: work } });
    for (let i = 0; i < RUNS; i++) {
      // ---- backup ----
      const cxb = join(work, `ours-${i}.cxb`);
      const b = JSON.parse((await node(['backup', store.agentDir, cxb, keyTxt])).stdout);
      if (b.bytes !== bytes || b.files !== files.length)
        throw new Error(`ours backed up ${b.files} files / ${b.bytes} bytes, the store has ${files.length} / ${bytes}`);
      ours.push(b);
      const refOut = join(work, `ref-${i}.age`);
      const rb = await timedShell(
        `'${tar}' -cf - -C '${store.agentDir}' -T '${join(work, 'files.txt')}' | '${zstd}' -3 -q -c | '${age}' -r ${recipient} > '${refOut}'`,
        work,
      );
      reference.push({ ...rb, archiveBytes: statSync(refOut).size });
      refVerify.push(await timedShell(`'${age}' -d -i '${keyTxt}' '${refOut}' | '${zstd}' -d -q -c | '${tar}' -t > /dev/null`, work));

      // ---- restore into empty roots ----
      const oursRoot = join(work, `ours-root-${i}`);
      mkdirSync(oursRoot);
      const rs = JSON.parse((await node(['restore', cxb, keyTxt, oursRoot, join(work, 'staging')])).stdout);
      const got = treeBytes(oursRoot);
      if (rs.files !== files.length || got.files !== files.length || got.bytes !== bytes)
        throw new Error(`ours restored ${got.files} files / ${got.bytes} bytes`);
      oursRestore.push(rs);
      if (i === 0) {
        rmSync(oursRoot, { recursive: true, force: true });
        mkdirSync(oursRoot);
        const ck = JSON.parse((await node(['restore-checked', cxb, keyTxt, oursRoot, join(work, 'staging')])).stdout);
        const gotCk = treeBytes(oursRoot);
        if (ck.files !== files.length || gotCk.files !== files.length || gotCk.bytes !== bytes)
          throw new Error(`ours (check, then restore) restored ${gotCk.files} files / ${gotCk.bytes} bytes`);
        checked.push(ck);
      }
      const refRoot = join(work, `ref-root-${i}`);
      mkdirSync(refRoot);
      const rr = await timedShell(`'${age}' -d -i '${keyTxt}' '${refOut}' | '${zstd}' -d -q -c | '${tar}' -x -C '${refRoot}'`, work);
      const refGot = treeBytes(refRoot);
      if (refGot.files !== files.length || refGot.bytes !== bytes) throw new Error(`reference restored ${refGot.files} files / ${refGot.bytes} bytes`);
      refRestore.push(rr);
      rmSync(cxb, { force: true });
      rmSync(refOut, { force: true });
      rmSync(oursRoot, { recursive: true, force: true });
      rmSync(refRoot, { recursive: true, force: true });
    }

    const oMs = median(ours.map((x) => x.totalMs));
    const oWrite = median(ours.map((x) => x.writeMs));
    const oVerify = median(ours.map((x) => x.verifyMs));
    const rMs = median(reference.map((x) => x.ms));
    const rvMs = median(refVerify.map((x) => x.ms));
    const orMs = median(oursRestore.map((x) => x.totalMs));
    const ck = checked[0];
    const rrMs = median(refRestore.map((x) => x.ms));
    const oRss = Math.max(...ours.map((x) => x.maxRssBytes));
    const orRss = Math.max(...[...oursRestore, ...checked].map((x) => x.maxRssBytes));
    const rRss = reference.map((x) => x.maxRssBytes).filter((x) => x !== null);
    const rrRss = refRestore.map((x) => x.maxRssBytes).filter((x) => x !== null);
    // CPU (user + system, all threads and processes) beside wall time: on a loaded machine it is the steadier figure.
    const orCpu = median(oursRestore.map((x) => x.cpuMs));
    const rrCpus = refRestore.map((x) => x.cpuMs).filter((x) => x !== null);
    const rrCpu = rrCpus.length ? median(rrCpus) : null;
    const cpuLine = rrCpu ? `; CPU ours ${(orCpu / 1000).toFixed(2)} s vs ${(rrCpu / 1000).toFixed(2)} s, ratio ${(rrCpu / orCpu).toFixed(2)}×` : '';
    const fmtRate = (ms) => `${mbps(bytes, ms).toFixed(0)} MB/s`;
    const within = (ok) => (ok ? 'within target' : 'OVER target');
    const lines = [
      `backup  ours ${fmtRate(oMs)} (write ${fmtRate(oWrite)} + verify ${fmtRate(oVerify)}; archive ${fmtBytes(ours[0].archiveBytes)})  vs  tar|zstd -3|age ${fmtRate(rMs)} (archive ${fmtBytes(reference[0].archiveBytes)})`,
      `        throughput ratio ${(rMs / oMs).toFixed(2)}× (write only ${(rMs / oWrite).toFixed(2)}×; target ≥ 0.5× ${within(rMs / oMs >= 0.5)})`,
      `        peak RSS ours ${fmtBytes(oRss)} (target ≤ 300 MiB ${within(oRss <= RSS_TARGET)})${rRss.length ? `, reference largest process ${fmtBytes(Math.max(...rRss))}` : ''}`,
      `verify  ours ${fmtRate(oVerify)} (decrypt, decompress, SHA-256 of every payload)  vs  age -d|zstd -d|tar -t ${fmtRate(rvMs)} (no hashes): ratio ${(rvMs / oVerify).toFixed(2)}×`,
      `restore ours ${fmtRate(orMs)} (\`backups restore --yes\`: one pass, its plan shown after ${(median(oursRestore.map((x) => x.planMs)) / 1000).toFixed(2)} s)  vs  age -d|zstd -d|tar -x ${fmtRate(rrMs)}`,
      `        throughput ratio ${(rrMs / orMs).toFixed(2)}× (target ≥ 0.5× ${within(rrMs / orMs >= 0.5)})${cpuLine}`,
      `        the Backups screen's check + restore (1 run): ${fmtRate(ck.totalMs)} (check ${fmtRate(ck.checkMs)} + restore ${fmtRate(ck.restoreMs)}), CPU ${(ck.cpuMs / 1000).toFixed(2)} s`,
      `        peak RSS ours ${fmtBytes(orRss)} (target ≤ 300 MiB ${within(orRss <= RSS_TARGET)})${rrRss.length ? `, reference largest process ${fmtBytes(Math.max(...rrRss))}` : ''}`,
      `(MB/s = MiB of original file bytes per second; ${RUNS} runs, medians)`,
    ];
    return {
      name,
      ours: oMs,
      reference: rMs,
      ratio: oMs / rMs,
      target,
      runs: { ours: ours.map((x) => x.totalMs), reference: reference.map((x) => x.ms) },
      extra: {
        lines,
        files: files.length,
        bytes,
        backup: { ours, reference, oursMBps: mbps(bytes, oMs), referenceMBps: mbps(bytes, rMs), throughputRatio: rMs / oMs, peakRssBytes: oRss },
        verify: { oursMBps: mbps(bytes, oVerify), referenceMBps: mbps(bytes, rvMs), throughputRatio: rvMs / oVerify, reference: refVerify },
        restore: {
          ours: oursRestore,
          checked,
          reference: refRestore,
          oursMBps: mbps(bytes, orMs),
          referenceMBps: mbps(bytes, rrMs),
          throughputRatio: rrMs / orMs,
          cpuMs: { ours: orCpu, reference: rrCpu },
          peakRssBytes: orRss,
        },
      },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
