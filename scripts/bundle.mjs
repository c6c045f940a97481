#!/usr/bin/env node
// The second half of `npm run build`: one rolldown bundle per process kind,
// written over the per-module tsc tree in dist/ (which stays for the tests
// and benches that import a single module). A start then loads a handful of
// files instead of compiling ~400 modules:
//   dist/cli.js           the bin: answers `--version` from a constant, else loads cleanerx.js
//   dist/cleanerx.js      src/cli.ts (the app and every command)
//   dist/worker.js        src/worker.ts (the app's engine thread)
//   dist/keyring-child.js src/backup/keyring-child.ts (the key ring's helper process)
//   dist/chunk-*.js       code shared by these, and the lazily imported parts
// Everything sits flat in dist/ because modules find their neighbours by
// `new URL('./worker.js' | './keyring-child.js', import.meta.url)`: in the
// bundle those resolve beside the chunk that holds the code.
// Native modules, blessed (it reads its terminfo data and widgets by path) and
// the pinned agents stay in node_modules. yargs is bundled: loaded from
// node_modules it was ~30 files to resolve and read, ~45 ms of CPU on every
// command that parses with it (the tests spawn hundreds); its one path-finding
// line is pointed back at its own folder (yargsShimFix) for its locales.

import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRIES = { cleanerx: 'src/cli.ts', worker: 'src/worker.ts', 'keyring-child': 'src/backup/keyring-child.ts' };
const EXTERNAL = ['better-sqlite3', '@mongodb-js/zstd', '@napi-rs/keyring', '@lydell/node-pty', 'node-pty', 'blessed'];

// yargs' ESM shim finds its locales (Options:, Commands: in Chinese) and the package.json it
// guesses a version from relative to its own file. Bundled, import.meta.url would be a dist/
// chunk; import.meta.resolve finds the installed yargs from there, wherever npm put it.
const YARGS_SHIM = /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/;
const yargsShimFix = {
  name: 'yargs-shim-path',
  transform(code, id) {
    if (!YARGS_SHIM.test(id)) return null;
    const from = 'fileURLToPath(import.meta.url)';
    if (!code.includes(from)) throw new Error(`${id} no longer says ${from}: check how it finds its locales before bundling it`);
    return code.replace(from, "fileURLToPath(new URL('./lib/platform-shims/esm.mjs', import.meta.resolve('yargs')))");
  },
};

/** `id` is a package in EXTERNAL (or a file inside one), or a Node built-in. */
function isExternal(id) {
  if (id.startsWith('node:')) return true;
  return EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`));
}

/**
 * V8's optimizing compiler starts on a function after 132 KB of its bytecode
 * ran (--interrupt-budget); a cleanerx command lives a fraction of a second,
 * and TurboFan compiled, on another core, functions the run then barely used.
 * With 600 KB (bench/jit-budget.mjs, alternated pairs on 2 cores): a 1,000-session
 * clean 0.81× the CPU at 0.99× the wall, a 10k pi scan 0.82× the CPU at
 * 1.08× the wall (the default's compiles ran on the idle second core); 1.5 MB
 * and 3 MB saved no more CPU and cost more wall. Set before the bundle loads,
 * it applies to the worker threads too. Only on the V8 it was measured on: an
 * unknown flag would print "Error: unrecognized flag" on stderr.
 */
export const JIT_BUDGET = { v8Major: [11], flag: '--interrupt-budget=600000' };

/** The bin: `--version` costs a Node start and nothing else; anything else runs the bundled CLI. */
function launcher(version) {
  return `#!/usr/bin/env node
// Written by scripts/bundle.mjs: the version is the package's at build time (the build stamp covers package.json).
import { setFlagsFromString } from 'node:v8';
const a = process.argv;
if (a.length === 3 && (a[2] === '--version' || a[2] === '-V')) process.stdout.write(${JSON.stringify(`${version}\n`)});
else {
  // A later optimizing start for short runs (scripts/bundle.mjs, JIT_BUDGET); CLEANERX_JIT_DEFAULT=1 keeps V8's own, for comparison.
  if (${JSON.stringify(JIT_BUDGET.v8Major)}.includes(Number(process.versions.v8.split('.')[0])) && process.env.CLEANERX_JIT_DEFAULT !== '1') setFlagsFromString(${JSON.stringify(JIT_BUDGET.flag)});
  await import('./cleanerx.js');
}
`;
}

export async function bundle(root) {
  const { rolldown } = await import('rolldown');
  const dist = join(root, 'dist');
  // Chunks of an older build would otherwise pile up (their names carry a content hash).
  for (const f of readdirSync(dist)) if (f.startsWith('chunk-') && f.endsWith('.js')) rmSync(join(dist, f));
  const input = Object.fromEntries(Object.entries(ENTRIES).map(([k, v]) => [k, join(root, v)]));
  const build = await rolldown({
    input,
    platform: 'node',
    external: isExternal,
    plugins: [yargsShimFix],
    logLevel: 'warn',
    tsconfig: join(root, 'tsconfig.build.json'),
  });
  await build.write({ dir: dist, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunk-[name]-[hash].js', sourcemap: false });
  await build.close();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  writeFileSync(join(dist, 'cli.js'), launcher(version ?? '0.0.0'));
  chmodSync(join(dist, 'cli.js'), 0o755);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  try {
    await bundle(root);
  } catch (e) {
    process.stderr.write(`${e?.stack ?? e}\nThe bundle failed (the error is above); fix it and run npm run build again.\n`);
    process.exit(1);
  }
}
