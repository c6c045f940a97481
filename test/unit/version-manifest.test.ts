// Detection's version without a process start: an npm-installed OpenCode
// states its version in the package manifest beside its binary. The probe
// (`opencode --version`: ~0.7 s CPU, over its 3 s limit on a loaded machine,
// where nothing gets cached and every scan asked again) runs only when no
// manifest of OpenCode's own answers. The fake binaries below record each
// start, so a probe that should not have run is seen.

import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OPENCODE_PACKAGE, opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { PI_PACKAGE, piAdapter } from '../../src/adapters/pi/index.js';
import { ROOT } from '../helpers/constants.js';
import { manifestVersion } from '../../src/adapters/shared/version-probe.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { detectOne, readVersion } from '../../src/engine/host/detect.js';
import { OPENCODE_BIN } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const started = (): string => join(t.root, 'started');
const state = (): string => join(t.root, 'state');

/** `<pkg>/bin/opencode` printing `printed` and recording its start, with `<pkg>/package.json` = manifest (a string is written as is). */
function fakePackage(pkg: string, manifest: object | string | null, printed = '9.9.9'): string {
  const exe = join(pkg, 'bin', 'opencode');
  mkdirSync(dirname(exe), { recursive: true });
  writeFileSync(exe, `#!/bin/sh\necho started >> '${started()}'\necho '${printed}'\n`);
  chmodSync(exe, 0o755);
  if (manifest !== null) writeFileSync(join(pkg, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return exe;
}

function ctxWith(binDir: string): HostContext {
  return { ...t.ctx, env: { ...t.env, PATH: `${binDir}:/usr/bin:/bin` } };
}

const detect = (binDir: string) => detectOne(opencodeAdapter, ctxWith(binDir), undefined, true, state());

describe('the version an npm install states', () => {
  it("is read from OpenCode's own manifest: no process starts and nothing is cached", async () => {
    t = makeTempEnv();
    const exe = fakePackage(join(t.root, 'node_modules', 'opencode-linux-x64'), { name: 'opencode-linux-x64', version: '1.18.33' });
    const inst = await detect(dirname(exe));
    expect(inst).toMatchObject({ state: 'installed', executable: exe, version: '1.18.33' });
    expect(existsSync(started())).toBe(false);
    expect(existsSync(join(state(), 'versions.json'))).toBe(false);
  });

  it('follows a global bin link to the package (npm i -g opencode-ai)', async () => {
    t = makeTempEnv();
    const real = fakePackage(join(t.root, 'lib', 'node_modules', 'opencode-ai'), { name: 'opencode-ai', version: '1.2.3-beta.4' });
    const bin = join(t.root, 'global-bin');
    mkdirSync(bin);
    symlinkSync(real, join(bin, 'opencode'));
    expect((await detect(bin)).version).toBe('1.2.3-beta.4');
    expect(existsSync(started())).toBe(false);
  });

  it('a foreign, malformed, linked, oversized or odd manifest, or none, leaves it to --version (then cached)', async () => {
    t = makeTempEnv();
    const cases: [string, object | string | null][] = [
      ['foreign', { name: 'not-opencode', version: '1.0.0' }],
      ['malformed', '{"name": "opencode-ai", "version": '],
      ['escape', { name: 'opencode-ai', version: '1.0.0\u001b[31m' }],
      ['not-a-version', { name: 'opencode-ai', version: 'latest' }],
      ['array', '["opencode-ai"]'],
      ['huge', JSON.stringify({ name: 'opencode-ai', version: '1.0.0', pad: 'x'.repeat(70 * 1024) })],
      ['none', null],
    ];
    for (const [label, manifest] of cases) {
      const exe = fakePackage(join(t.root, label, 'opencode-ai'), manifest, `7.7.7-${label}`);
      expect(await manifestVersion(exe, OPENCODE_PACKAGE), label).toBeNull();
      expect((await detect(dirname(exe))).version, label).toBe(`7.7.7-${label}`);
    }
    // A manifest that is a link is not followed.
    const linked = fakePackage(join(t.root, 'linked', 'opencode-ai'), null, '7.7.7-linked');
    writeFileSync(join(t.root, 'elsewhere.json'), JSON.stringify({ name: 'opencode-ai', version: '1.0.0' }));
    symlinkSync(join(t.root, 'elsewhere.json'), join(t.root, 'linked', 'opencode-ai', 'package.json'));
    expect((await detect(dirname(linked))).version).toBe('7.7.7-linked');
    // A binary outside a bin/ dir (a standalone install) has no manifest to ask.
    const standalone = join(t.root, 'standalone', 'opencode');
    mkdirSync(dirname(standalone), { recursive: true });
    writeFileSync(join(t.root, 'package.json'), JSON.stringify({ name: 'opencode-ai', version: '1.0.0' }));
    writeFileSync(standalone, `#!/bin/sh\necho started >> '${started()}'\necho 7.7.7-standalone\n`);
    chmodSync(standalone, 0o755);
    expect((await detect(dirname(standalone))).version).toBe('7.7.7-standalone');
    expect(existsSync(join(state(), 'versions.json'))).toBe(true);
  });

  it("the pinned OpenCode's manifest says what its --version prints", async () => {
    t = makeTempEnv();
    const probed = await readVersion(opencodeAdapter, OPENCODE_BIN, { ...t.env, PATH: '/usr/bin:/bin' });
    // (the probe's own 3 s limit may run out on a loaded machine: then only the manifest's side is checked)
    const stated = await manifestVersion(OPENCODE_BIN, OPENCODE_PACKAGE);
    expect(stated).toMatch(/^\d+\.\d+\.\d+$/);
    if (probed !== null) expect(stated).toBe(probed);
  }, 30_000);

  it("pi's version comes from its own manifest's bin entry: the pinned 0.73 and 1.6 packages, no process start", async () => {
    t = makeTempEnv();
    const pin = (rel: string) => JSON.parse(readFileSync(join(ROOT, rel), 'utf8')) as { version: string };
    expect(await manifestVersion(join(ROOT, 'node_modules', '.bin', 'pi'), PI_PACKAGE)).toBe(
      pin('node_modules/@mariozechner/pi-coding-agent/package.json').version,
    );
    const pi1 = join(ROOT, 'test', 'peers', 'pi1', 'node_modules', '.bin', 'pi');
    if (existsSync(pi1)) expect(await manifestVersion(pi1, PI_PACKAGE)).toBe('1.6.0');
    // A fake pi package: dist/cli.js named by "bin", started by nothing.
    const pkg = join(t.root, 'lib', 'node_modules', '@mariozechner', 'pi-coding-agent');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    const cli = join(pkg, 'dist', 'cli.js');
    writeFileSync(cli, `#!/bin/sh\necho started >> '${started()}'\necho 'pi 9.9.9'\n`);
    chmodSync(cli, 0o755);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@mariozechner/pi-coding-agent', version: '0.80.2', bin: { pi: 'dist/cli.js' } }));
    const bin = join(t.root, 'bin');
    mkdirSync(bin);
    symlinkSync(cli, join(bin, 'pi'));
    const inst = await detectOne(piAdapter, ctxWith(bin), undefined, true, state());
    expect(inst.version).toBe('0.80.2');
    expect(existsSync(started())).toBe(false);
    // The same file, not named by "bin" (another script of the package): no answer from the manifest.
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@mariozechner/pi-coding-agent', version: '0.80.2', bin: { pi: 'dist/other.js' } }));
    expect(await manifestVersion(join(bin, 'pi'), PI_PACKAGE)).toBeNull();
  });
});
