#!/usr/bin/env node
// Reference for the claude-scan bench: a "plain reader" that does the I/O a
// complete Claude inventory needs and nothing else: one listing of every
// per-session root and project bucket; for every projects/*/*.jsonl an
// O_NOFOLLOW open, an fstat, the bounded head and (for a longer file) tail
// reads cleanerx does; the two sidecar files Claude reads (custom-title.json,
// archived.json) beside a transcript that has a session folder; and a walk
// (readdir + lstat, links never followed) of every other entry of the home,
// because cleanerx sizes and revisions every one of them. It parses, hashes
// and prints nothing. What cleanerx takes beyond this is its own cost.
//
//   node claude-plain-reader.mjs <CLAUDE_CONFIG_DIR> <headBytes> <tailBytes>

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

const home = process.argv[2] ?? '.';
const HEAD = Number(process.argv[3] ?? 64 * 1024);
const TAIL = Number(process.argv[4] ?? 64 * 1024);
const PER_SESSION_ROOTS = ['tasks', 'file-history', 'image-cache', 'uploads', 'session-env', 'debug'];
const OPEN = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const head = Buffer.allocUnsafe(HEAD);
const tail = Buffer.allocUnsafe(TAIL);
const small = Buffer.allocUnsafe(64 * 1024);
let files = 0;
let bytes = 0;
let entries = 0;

function readRange(fd, buf, len, from) {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

const list = (dir) => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

/** A small sidecar file, read whole (bounded), as cleanerx's readRegularText does. */
function readSidecar(p) {
  let fd;
  try {
    fd = openSync(p, OPEN);
  } catch {
    return;
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile()) bytes += readRange(fd, small, Math.min(small.length, st.size), 0);
  } finally {
    closeSync(fd);
  }
}

/** lstat of p and, for a real directory, of everything under it. */
function walk(p, st) {
  entries++;
  if (!st.isDirectory()) return;
  let names;
  try {
    names = readdirSync(p);
  } catch {
    return;
  }
  for (const n of names) {
    const c = `${p}/${n}`;
    let cst;
    try {
      cst = lstatSync(c);
    } catch {
      continue;
    }
    walk(c, cst);
  }
}
const walkPath = (p) => {
  try {
    walk(p, lstatSync(p));
  } catch {
    /* missing */
  }
};

// The per-session roots are listed once to map entries to sessions.
for (const r of PER_SESSION_ROOTS) list(join(home, r));

const projects = join(home, 'projects');
for (const b of list(projects)) {
  if (!b.isDirectory()) continue;
  const bucket = join(projects, b.name);
  const ents = list(bucket);
  const names = new Set(ents.map((e) => e.name));
  for (const e of ents) {
    const p = join(bucket, e.name);
    if (!e.name.endsWith('.jsonl') || !e.isFile()) {
      // Session folders, memory, anything else in the bucket: sized by a walk.
      walkPath(p);
      continue;
    }
    const fd = openSync(p, OPEN);
    try {
      const size = fstatSync(fd).size;
      bytes += readRange(fd, head, Math.min(HEAD, size), 0);
      if (size > HEAD) bytes += readRange(fd, tail, TAIL, size - TAIL);
    } finally {
      closeSync(fd);
    }
    files++;
    entries++;
    const stem = e.name.slice(0, -6);
    if (names.has(stem)) {
      readSidecar(join(bucket, stem, 'custom-title.json'));
      readSidecar(join(bucket, stem, 'archived.json'));
    }
  }
}

// Everything else in the home (per-session roots, caches, logs, protected and unknown entries) is sized.
for (const e of list(home)) if (e.name !== 'projects') walkPath(join(home, e.name));
process.stdout.write(`${JSON.stringify({ files, bytes, entries })}\n`);
