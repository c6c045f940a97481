#!/usr/bin/env node
// Reference for the pi-scan bench: a "plain reader" that does the I/O a
// complete inventory needs and parses nothing. For every *.jsonl in every
// bucket under sessions/: an O_NOFOLLOW|O_NONBLOCK open, an fstat (the
// inventory must check the descriptor is a regular file, its owner and size,
// and record its identity), the first 2 MiB, and for a longer file its last
// 256 KiB + 1 (where a late rename and the last message are), then close.
// Whatever cleanerx takes beyond this is its own cost: module loading, header
// parsing, the forest, the JSON report.
//
//   node plain-reader.mjs <agent dir>

import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

// The bounds of src/adapters/pi/session-reader.ts (PI_PREFIX_BYTES, PI_TAIL_BYTES).
const PREFIX = 2 * 1024 * 1024;
const TAIL = 256 * 1024 + 1;
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const sessions = join(process.argv[2] ?? '.', 'sessions');
const head = Buffer.allocUnsafe(PREFIX);
const tail = Buffer.allocUnsafe(TAIL);
let files = 0;
let bytes = 0;

function readAt(fd, buf, want, pos) {
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, got, want - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

for (const b of readdirSync(sessions, { withFileTypes: true })) {
  if (!b.isDirectory()) continue;
  const dir = join(sessions, b.name);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith('.jsonl')) continue;
    const fd = openSync(`${dir}/${e.name}`, FLAGS);
    try {
      const size = fstatSync(fd).size;
      const got = readAt(fd, head, Math.min(PREFIX, size), 0);
      bytes += got;
      if (size > got) {
        const want = Math.min(TAIL, size - got + 1);
        bytes += readAt(fd, tail, want, size - want);
      }
    } finally {
      closeSync(fd);
    }
    files++;
  }
}
process.stdout.write(`${JSON.stringify({ files, bytes })}\n`);
