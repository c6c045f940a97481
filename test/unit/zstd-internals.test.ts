// src/backup/zstd-frames.ts reaches past @mongodb-js/zstd's public API: it
// loads the package's native binding (`@mongodb-js/zstd/bindings.js`) to
// pass a compression level (index.js drops it), and rewrites the frame
// header that binding writes (descriptor 0: no content size) so that frames
// declare their size. This test checks each of those on the installed
// package, so a version whose internals differ fails here, naming what
// changed — not later as archives that are silently larger or slower, or a
// backup that fails at its first frame. The same checker is run on fake
// packages with each difference, to show it catches them. (That
// compressFrame's frames then declare their size: backup-age.test.ts.)

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BINDING_MODULE, rawFrames } from '../../src/backup/zstd-frames.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const ZSTD = '/usr/bin/zstd';
const SRC = fileURLToPath(new URL('../../src/backup/zstd-frames.ts', import.meta.url));
const ROOT_PKG = fileURLToPath(new URL('../../package.json', import.meta.url));

interface Binding {
  compress(data: Buffer, level: number): unknown;
  decompress(data: Buffer): unknown;
}

const isPromise = (v: unknown): v is Promise<Buffer> => typeof (v as Promise<Buffer> | undefined)?.then === 'function';

/**
 * What zstd-frames.ts needs from the package that `from` (a module path)
 * resolves `@mongodb-js/zstd` to; one sentence per thing that differs.
 */
async function internalsProblems(from: string): Promise<string[]> {
  const req = createRequire(from);
  let binding: Binding;
  try {
    binding = req(BINDING_MODULE) as Binding;
  } catch (e) {
    return [`${BINDING_MODULE} does not load (${(e as Error).message.split('\n')[0]})`];
  }
  const problems: string[] = [];
  for (const f of ['compress', 'decompress'] as const) if (typeof binding[f] !== 'function') problems.push(`the binding has no ${f}() function`);
  if (problems.length) return problems;
  const text = Buffer.from('{"type":"message","text":"the quick brown fox jumps over the lazy dog"}\n'.repeat(20_000));
  const call = async (what: string, v: unknown): Promise<Buffer | null> => {
    if (!isPromise(v)) {
      problems.push(`${what} does not return a Promise (a callback or synchronous API?)`);
      return null;
    }
    try {
      return Buffer.from(await v);
    } catch (e) {
      problems.push(`${what} rejected (${(e as Error).message})`);
      return null;
    }
  };
  const fast = await call('compress(data, 1)', binding.compress(text, 1));
  const strong = await call('compress(data, 19)', binding.compress(text, 19));
  if (!fast || !strong) return problems;
  if (fast.equals(strong) || strong.length >= fast.length)
    problems.push(`the level argument is ignored (level 1: ${fast.length} bytes, level 19: ${strong.length})`);
  // The header shape withContentSize() rewrites: magic, then descriptor 0 (window descriptor, no content size, no checksum, no dictionary).
  if (fast.readUInt32LE(0) !== 0xfd2fb528) problems.push('compress() does not write a zstd frame');
  else if (fast[4] !== 0)
    problems.push(`compress() writes frame descriptor 0x${fast[4]!.toString(16)}, not 0 (no content size): its frames would no longer declare their size`);
  if (problems.length) return problems;
  const round = await call('decompress(frame)', binding.decompress(fast));
  if (round && !round.equals(text)) problems.push('decompress(compress(data)) is not data');
  // The frames the archive holds: content size declared (compressFrame), raw blocks (the manifest), and the stock `zstd -3`'s (checksum too).
  const stock = execFileSync(ZSTD, ['-3', '-c', '-q'], { input: text, maxBuffer: 64 << 20, timeout: 60_000 });
  for (const [what, frame] of [
    ['a frame that declares its size', Buffer.concat([fast.subarray(0, 4), Buffer.from([0x80, fast[5]!]), u32(text.length), fast.subarray(6)])],
    ['a frame of raw blocks', rawFrames(text.subarray(0, 100_000))],
    ["the stock zstd -3's frame", stock],
  ] as const) {
    const out = await call(`decompress(${what})`, binding.decompress(frame));
    if (out && !out.equals(what === 'a frame of raw blocks' ? text.subarray(0, 100_000) : text)) problems.push(`decompress(${what}) gives other bytes`);
  }
  // A corrupt frame (a reserved block type) and one cut short must be errors the reader can report, never a crash or made-up output.
  const corrupt = Buffer.from(fast);
  corrupt[6]! |= 0x06; // the first block header (after magic, descriptor and window byte)
  for (const [what, frame] of [
    ['corrupt', corrupt],
    ['cut short', fast.subarray(0, fast.length - 5)],
  ] as const) {
    const v = binding.decompress(frame);
    if (!isPromise(v)) problems.push(`decompress(${what}) does not return a Promise`);
    else if (
      await v.then(
        () => true,
        (e: unknown) => !(e instanceof Error),
      )
    )
      problems.push(`decompress(${what}) does not reject with an Error`);
  }
  return problems;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

describe('@mongodb-js/zstd internals that zstd-frames.ts relies on', () => {
  it('hold on the installed package', async () => {
    expect(await internalsProblems(SRC), '@mongodb-js/zstd differs from what src/backup/zstd-frames.ts relies on').toEqual([]);
  });

  it('the installed version is the one package.json pins exactly, its native part too', () => {
    const req = createRequire(SRC);
    const pin = (JSON.parse(readFileSync(ROOT_PKG, 'utf8')) as { dependencies: Record<string, string> }).dependencies['@mongodb-js/zstd'];
    expect(pin).toMatch(/^\d+\.\d+\.\d+$/);
    const pkgDir = join(req.resolve(BINDING_MODULE), '..');
    const installed = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(pin);
    // The prebuilt binary for this platform (an optional dependency of the same version).
    const triple = `${process.platform}-${process.arch}${process.platform === 'linux' ? '-gnu' : ''}`;
    const native = createRequire(join(pkgDir, 'bindings.js'))(`@mongodb-js/zstd-${triple}/package.json`) as { version: string };
    expect(native.version).toBe(pin);
  });

  describe('and the check fails, naming the difference, on a package whose internals differ', () => {
    let t: TempEnv;
    beforeEach(() => {
      t = makeTempEnv('cleanerx-zstd-');
    });
    afterEach(() => t.cleanup());
    const real = createRequire(SRC).resolve(BINDING_MODULE);
    /** A fake @mongodb-js/zstd whose bindings.js is `source` (absent when null); returns a module path that resolves to it. */
    function fakePackage(source: string | null): string {
      const dir = join(t.root, 'node_modules/@mongodb-js/zstd');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@mongodb-js/zstd', version: '9.0.0', main: 'index.js' }));
      if (source !== null) writeFileSync(join(dir, 'bindings.js'), `const real = require(${JSON.stringify(real)});\n${source}\n`);
      return join(t.root, 'from.js');
    }

    it.each([
      ['no bindings.js (a layout like 2.x: lib/index.js, build/Release/zstd.node)', null, /bindings\.js does not load/],
      ['the level dropped', 'exports.compress = (d) => real.compress(d, 3);\nexports.decompress = real.decompress;', /level argument is ignored/],
      [
        'a callback API (compress(data, level, cb))',
        'exports.compress = (d, l, cb) => { real.compress(d, l).then((r) => cb?.(null, r)); };\nexports.decompress = real.decompress;',
        /compress\(data, 1\) does not return a Promise/,
      ],
      [
        'frames that already declare their size and a checksum',
        `const { execFileSync } = require('node:child_process');\nexports.compress = async (d, l) => execFileSync(${JSON.stringify(ZSTD)}, ['-' + l, '-c', '-q'], { input: d, maxBuffer: 1 << 26 });\nexports.decompress = real.decompress;`,
        /frame descriptor 0x[0-9a-f]+, not 0/,
      ],
      ['no decompress', 'exports.compress = real.compress;', /no decompress\(\) function/],
      [
        'a decompress that makes up output for a corrupt frame',
        'exports.compress = real.compress;\nexports.decompress = (d) => real.decompress(d).catch(() => Buffer.alloc(0));',
        /decompress\(corrupt\) does not reject/,
      ],
    ] as const)('%s', async (_name, source, problem) => {
      const problems = await internalsProblems(fakePackage(source));
      expect(problems.join('\n')).toMatch(problem);
    });
  });
});
