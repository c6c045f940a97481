#!/usr/bin/env node
// Reference for the claude-scan bench: a "plain reader" that does the same
// bounded transcript I/O as cleanerx's Claude inventory — the first 2 MiB and
// the last 64 KiB of every projects/*/*.jsonl — and parses nothing. What
// cleanerx takes beyond this is its own cost: the sidecar walk (subagents,
// tool results, file-history, …) for sizes and revisions, title parsing,
// the forest and the JSON report.
//
//   node claude-plain-reader.mjs <CLAUDE_CONFIG_DIR>

import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

const HEAD = 2 * 1024 * 1024;
const TAIL = 64 * 1024;
const projects = join(process.argv[2] ?? '.', 'projects');
const buf = Buffer.allocUnsafe(HEAD);
let files = 0;
let bytes = 0;

function readRange(fd, from, len) {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, from + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

for (const b of readdirSync(projects, { withFileTypes: true })) {
  if (!b.isDirectory()) continue;
  const dir = join(projects, b.name);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith('.jsonl')) continue;
    const fd = openSync(join(dir, e.name), 'r');
    try {
      const size = fstatSync(fd).size;
      bytes += readRange(fd, 0, Math.min(HEAD, size));
      if (size > HEAD) bytes += readRange(fd, Math.max(HEAD, size - TAIL), Math.min(TAIL, size - HEAD));
    } finally {
      closeSync(fd);
    }
    files++;
  }
}
process.stdout.write(`${JSON.stringify({ files, bytes })}\n`);
