#!/usr/bin/env node
// Reference for the pi-scan bench: a "plain reader" that does the same I/O as
// a bounded inventory (the first 2 MiB of every *.jsonl in every bucket under
// sessions/) and parses nothing. Whatever cleanerx takes beyond this is its
// own cost: module loading, header parsing, the forest, the JSON report.
//
//   node plain-reader.mjs <agent dir>

import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 2 * 1024 * 1024;
const sessions = join(process.argv[2] ?? '.', 'sessions');
const buf = Buffer.allocUnsafe(PREFIX);
let files = 0;
let bytes = 0;
for (const b of readdirSync(sessions, { withFileTypes: true })) {
  if (!b.isDirectory()) continue;
  const dir = join(sessions, b.name);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith('.jsonl')) continue;
    const fd = openSync(join(dir, e.name), 'r');
    try {
      let got = 0;
      for (;;) {
        const n = readSync(fd, buf, got, PREFIX - got, got);
        if (n === 0) break;
        got += n;
        if (got === PREFIX) break;
      }
      bytes += got;
    } finally {
      closeSync(fd);
    }
    files++;
  }
}
process.stdout.write(`${JSON.stringify({ files, bytes })}\n`);
