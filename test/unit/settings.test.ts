// config.json: strict load with fallback, atomic save, round trip.

import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { DEFAULT_SETTINGS, loadSettings, saveSettings, settingsPath, validateSettings, type Settings } from '../../src/engine/host/settings.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

function configDir(): string {
  t = makeTempEnv();
  return t.env.CLEANERX_CONFIG_DIR!;
}

function writeConfig(dir: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), text);
}

const custom: Settings = {
  version: 1,
  targetAgent: 'pi',
  homeOverrides: { pi: '/data/pi-agent', codex: '/data/codex' },
  retention: { backupDays: 90, logDays: 14, tempHours: 48 },
  backupKeyStore: 'keyring',
  language: 'zh',
};

describe('loadSettings', () => {
  it('returns defaults without a warning when there is no file', async () => {
    const dir = configDir();
    const loaded = await loadSettings(dir);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.warning).toBeUndefined();
    expect(loaded.path).toBe(join(dir, 'config.json'));
  });

  const invalid: [string, string][] = [
    ['malformed JSON', '{"version": 1,'],
    ['a JSON array', '[1,2]'],
    ['an unknown version', '{"version": 2}'],
    ['an unknown target agent', '{"version": 1, "targetAgent": "vim"}'],
    ['an unknown agent in homeOverrides', '{"version": 1, "homeOverrides": {"emacs": "/x"}}'],
    ['a relative home override', '{"version": 1, "homeOverrides": {"pi": "relative/dir"}}'],
    ['a tilde home override', '{"version": 1, "homeOverrides": {"pi": "~/pi"}}'],
    ['an out-of-range retention', '{"version": 1, "retention": {"backupDays": 0}}'],
    ['a fractional retention', '{"version": 1, "retention": {"logDays": 1.5}}'],
    ['an unknown key store', '{"version": 1, "backupKeyStore": "vault"}'],
    ['an unknown language', '{"version": 1, "language": "fr"}'],
    ['a language that is not a string', '{"version": 1, "language": 1}'],
  ];
  for (const [name, text] of invalid) {
    it(`falls back to defaults with a warning for ${name}`, async () => {
      const dir = configDir();
      writeConfig(dir, text);
      const loaded = await loadSettings(dir);
      expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
      expect(loaded.warning).toMatch(/invalid .*using defaults/);
    });
  }

  it('never echoes an escape sequence from config.json in its warning', async () => {
    const dir = configDir();
    writeConfig(dir, JSON.stringify({ version: 1, homeOverrides: { '\u001b]0;PWNED\u0007\u009b31m': '/x' } }));
    const loaded = await loadSettings(dir);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.warning).toMatch(/unknown agent ".*" in homeOverrides\); using defaults until you save\./);
    expect(loaded.warning).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('warns about a config path that is a directory or too large', async () => {
    const dir = configDir();
    mkdirSync(join(dir, 'config.json'), { recursive: true });
    let loaded = await loadSettings(dir);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.warning).toMatch(/not a regular file/);

    const dir2 = join(t.root, 'other-config');
    writeConfig(dir2, `{"version":1,"pad":"${'x'.repeat(70 * 1024)}"}`);
    loaded = await loadSettings(dir2);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.warning).toMatch(/too large/);
  });

  it('does not follow a symlinked config file', async () => {
    const dir = configDir();
    mkdirSync(dir, { recursive: true });
    const real = join(t.root, 'elsewhere.json');
    writeFileSync(real, JSON.stringify(custom));
    symlinkSync(real, join(dir, 'config.json'));
    const loaded = await loadSettings(dir);
    expect(loaded.settings).toEqual(DEFAULT_SETTINGS);
    expect(loaded.warning).toBeDefined();
  });

  it('reads a valid file, filling missing fields with defaults', async () => {
    const dir = configDir();
    writeConfig(dir, '{"version": 1, "homeOverrides": {"pi": "/data/pi", "codex": ""}, "retention": {"logDays": 3}}');
    const loaded = await loadSettings(dir);
    expect(loaded.warning).toBeUndefined();
    expect(loaded.settings).toEqual({
      version: 1,
      targetAgent: null,
      homeOverrides: { pi: '/data/pi' },
      retention: { backupDays: 30, logDays: 3, tempHours: 24 },
      backupKeyStore: 'file',
      language: 'auto',
    });
  });

  it('reads each language choice', () => {
    for (const language of ['auto', 'en', 'zh'] as const) expect(validateSettings({ version: 1, language }).language).toBe(language);
    expect(validateSettings({ version: 1 }).language).toBe('auto');
    expect(() => validateSettings({ version: 1, language: 'zh_CN' })).toThrow('language must be "auto", "en" or "zh"');
  });
});

describe('saveSettings', () => {
  it('round-trips through load', async () => {
    const dir = configDir();
    await saveSettings(dir, custom);
    const loaded = await loadSettings(dir);
    expect(loaded.warning).toBeUndefined();
    expect(loaded.settings).toEqual(custom);
    const text = readFileSync(settingsPath(dir), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(custom);
  });

  it('writes a private file and leaves no partial files behind', async () => {
    const dir = configDir();
    await saveSettings(dir, custom);
    await saveSettings(dir, { ...custom, targetAgent: 'codex' });
    expect(statSync(settingsPath(dir)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('replaces the file by rename, never rewriting it in place', async () => {
    const dir = configDir();
    await saveSettings(dir, custom);
    // A hard link to the old file keeps the old content if the new one is a different inode.
    const keep = join(dir, '..', 'old-config.json');
    linkSync(settingsPath(dir), keep);
    const before = lstatSync(settingsPath(dir)).ino;
    await saveSettings(dir, { ...custom, targetAgent: 'claude' });
    expect(lstatSync(settingsPath(dir)).ino).not.toBe(before);
    expect(JSON.parse(readFileSync(keep, 'utf8')).targetAgent).toBe('pi');
    expect(JSON.parse(readFileSync(settingsPath(dir), 'utf8')).targetAgent).toBe('claude');
  });

  it('refuses to replace a symlinked config file', async () => {
    const dir = configDir();
    mkdirSync(dir, { recursive: true });
    const real = join(t.root, 'target.json');
    writeFileSync(real, 'untouched');
    symlinkSync(real, settingsPath(dir));
    await expect(saveSettings(dir, custom)).rejects.toThrow(/symbolic link/);
    expect(readFileSync(real, 'utf8')).toBe('untouched');
  });

  it('rejects a relative home override and writes nothing', async () => {
    const dir = configDir();
    await saveSettings(dir, custom);
    const before = readFileSync(settingsPath(dir), 'utf8');
    await expect(saveSettings(dir, { ...custom, homeOverrides: { pi: 'relative/pi' } })).rejects.toThrow(/absolute path/);
    expect(readFileSync(settingsPath(dir), 'utf8')).toBe(before);
    expect(() => validateSettings({ version: 1, homeOverrides: { pi: './x' } })).toThrow(/absolute/);
  });

  it('fails cleanly when the directory cannot be written', async () => {
    const dir = configDir();
    mkdirSync(dir, { recursive: true });
    // A file where the config directory should be: mkdir cannot succeed, even as root.
    const blocked = join(dir, 'sub');
    writeFileSync(blocked, '');
    await expect(saveSettings(join(blocked, 'cfg'), custom)).rejects.toThrow();
  });
});

describe('Engine settings', () => {
  it('saves and loads through the engine under the temp config dir only', async () => {
    t = makeTempEnv();
    const engine = new Engine(ADAPTERS, t.ctx);
    expect((await engine.loadSettings()).settings).toEqual(DEFAULT_SETTINGS);
    await engine.saveSettings(custom);
    const loaded = await engine.loadSettings();
    expect(loaded.settings).toEqual(custom);
    expect(loaded.path).toBe(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'));
    expect(loaded.path.startsWith(t.root)).toBe(true);
  });
});
