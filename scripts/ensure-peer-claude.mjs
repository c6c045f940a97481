#!/usr/bin/env node
// The pinned Claude Code binary (@anthropic-ai/claude-agent-sdk-linux-x64
// 0.3.333, 190 MB packed, 414 MB unpacked) for the plugin-cache peer test
// only. The root package replaces it with a placeholder (package.json
// overrides) so `npm ci` stays fast; this installs it into the nested package
// test/peers/claude-bin when that test starts, like test/peers/pi1: instant
// when present (a stamp holds the lock's hash), one plain sentence when it
// cannot be installed.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLAUDE_BIN_DIR = join(ROOT, 'test', 'peers', 'claude-bin');
/** The binary itself, once installed. */
export const CLAUDE_BIN = join(CLAUDE_BIN_DIR, 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude');

const lockHash = (lock) => createHash('sha256').update(readFileSync(lock)).digest('hex');

function current(dir, bin) {
  try {
    return existsSync(bin) && readFileSync(join(dir, 'node_modules', '.cleanerx-lock-hash'), 'utf8').trim() === lockHash(join(dir, 'package-lock.json'));
  } catch {
    return false;
  }
}

/** Returns null when the binary is ready, else one sentence saying what to do. */
export function ensurePeerClaude(dir = CLAUDE_BIN_DIR, env = process.env) {
  const bin = join(dir, 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude');
  if (current(dir, bin)) return null;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `The Claude Code peer needs linux-x64 (this is ${process.platform}-${process.arch}); its binary is @anthropic-ai/claude-agent-sdk-linux-x64.`;
  const r = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0 || !existsSync(bin)) {
    const why = r.error ? (r.error.code === 'ENOENT' ? 'npm is not on PATH' : r.error.message) : `npm ci exit ${r.status ?? r.signal}`;
    return `Installing the Claude Code peer failed (${why}); run \`npm ci --prefix test/peers/claude-bin\` and fix what it reports, then run the test again.`;
  }
  writeFileSync(join(dir, 'node_modules', '.cleanerx-lock-hash'), `${lockHash(join(dir, 'package-lock.json'))}\n`);
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = ensurePeerClaude();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
