// The language of the command line, through the real binary: --lang beats
// Settings beats the locale; a bad --lang is exit 2 in one sentence; --help
// of every command speaks both languages; --json is the same in both.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseLanguage, langFlag, withoutLang } from '../../src/cli/language.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { getLanguage, setLanguage } from '../../src/engine/i18n/index.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
});
afterEach(() => {
  setLanguage('en');
  t.cleanup();
});

function run(args: string[], env: Record<string, string | undefined> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...t.env, LC_ALL: undefined, LC_MESSAGES: undefined, LANG: 'C.UTF-8', ...env },
    encoding: 'utf8',
    input: '',
  });
}

const ZH = { LANG: 'zh_CN.UTF-8' };

function writeSettings(language: string): void {
  mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, language }));
}

describe('choosing the language', () => {
  it('reads --lang in both spellings, and leaves the rest of argv to the app', () => {
    expect(langFlag(['--demo', '--lang', 'zh'])).toBe('zh');
    expect(langFlag(['--lang=en', 'scan'])).toBe('en');
    expect(langFlag(['--lang'])).toBe('');
    expect(langFlag(['scan'])).toBeUndefined();
    expect(withoutLang(['--demo', '--lang', 'zh', '--read-only', '--lang=en'])).toEqual(['--demo', '--read-only']);
  });

  it('--lang beats Settings, Settings beat the locale, the locale beats English', async () => {
    const env = { ...t.env, LANG: 'zh_CN.UTF-8', LC_ALL: undefined, LC_MESSAGES: undefined };
    expect(await chooseLanguage([], env)).toBe('zh');
    expect(await chooseLanguage([], { ...env, LANG: 'C.UTF-8' })).toBe('en');
    expect(await chooseLanguage([], { ...env, LANG: undefined })).toBe('en');
    writeSettings('en');
    expect(await chooseLanguage([], env)).toBe('en');
    expect(await chooseLanguage(['--lang', 'zh'], env)).toBe('zh');
    expect(getLanguage()).toBe('zh');
    writeSettings('auto');
    expect(await chooseLanguage(['--lang=en'], env)).toBe('en');
  });

  it('a bad --lang is a usage error said in the language the rest chose', async () => {
    await expect(chooseLanguage(['--lang', 'fr'], { ...t.env, LANG: 'zh_CN.UTF-8' })).rejects.toThrow('--lang 只接受 zh 或 en。');
    await expect(chooseLanguage(['--lang'], { ...t.env, LANG: 'C' })).rejects.toThrow('--lang takes zh or en.');
  });

  it('the binary: exit 2 and one line for a bad --lang, with or without a command', () => {
    for (const args of [['--lang', 'fr'], ['scan', '--lang', 'xx'], ['--lang']]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toBe('cleanerx: --lang takes zh or en.\n');
      expect(r.stdout).toBe('');
    }
    expect(run(['--lang', 'de'], ZH).stderr).toBe('cleanerx: --lang 只接受 zh 或 en。\n');
  });
});

describe('--help in both languages', () => {
  const commands = [[], ['scan'], ['plan'], ['clean'], ['recovery'], ['backups'], ['doctor']];

  it.each(commands.map((c) => [c.join(' ') || 'cleanerx', c]))('%s --help', (_name, cmd) => {
    const en = run([...(cmd as string[]), '--help']);
    const zh = run([...(cmd as string[]), '--help'], ZH);
    const flag = run([...(cmd as string[]), '--help', '--lang', 'zh']);
    expect(en.status).toBe(0);
    expect(zh.status).toBe(0);
    expect(en.stdout).toContain('Options:');
    expect(en.stdout).toContain('Interface language: zh or en');
    expect(en.stdout).not.toMatch(/[\u4e00-\u9fff]/);
    expect(zh.stdout).toContain('选项：');
    expect(zh.stdout).toContain('界面语言：zh 或 en');
    expect(zh.stdout).not.toContain('Show help');
    expect(flag.stdout).toBe(zh.stdout);
    // Settings choose it too, and --lang still wins.
    writeSettings('zh');
    expect(run([...(cmd as string[]), '--help']).stdout).toBe(zh.stdout);
    expect(run([...(cmd as string[]), '--help', '--lang', 'en'], ZH).stdout).toBe(en.stdout);
  });

  it('a usage error is one line in the chosen language, exit 2', () => {
    const en = run(['scan', '--frobnicate']);
    const zh = run(['scan', '--frobnicate'], ZH);
    expect(en.status).toBe(2);
    expect(zh.status).toBe(2);
    expect(en.stderr).toBe('cleanerx: Unknown argument: --frobnicate (see cleanerx --help)\n');
    expect(zh.stderr).toMatch(/^cleanerx: 无法识别的选项：--frobnicate（见 cleanerx --help）\n$/);
    // yargs' own checks speak it too.
    const bad = run(['scan', '--agent', 'cursor'], ZH);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/cursor.*（见 cleanerx --help）/);
  });

  it('our own usage errors follow the language', () => {
    expect(run(['plan', '--agent', 'pi'], ZH).stderr).toContain('plan 至少需要一条规则');
    expect(run(['plan', '--agent', 'pi']).stderr).toContain('plan needs at least one rule');
    expect(run(['--agent', 'nobody'], ZH).stderr).toContain('--agent 需要以下之一');
  });
});

describe('human output and JSON', () => {
  beforeEach(() => {
    buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 4,
      forkRate: 0,
      now: Date.now(),
      cwdRoot: join(t.env.HOME!, 'src'),
    });
  });

  it('scan, doctor and plan speak Chinese under a Chinese locale; agent text stays as it is', () => {
    const scan = run(['scan', '--agent', 'pi'], ZH);
    expect(scan.status, scan.stderr).toBe(0);
    expect(scan.stdout).toMatch(/^pi — 已安装|^pi — 仅有本地数据/);
    expect(scan.stdout).toContain('  主目录    ');
    expect(scan.stdout).toMatch(/个会话/);
    expect(scan.stdout).not.toContain('  home ');
    expect(scan.stdout).not.toContain(' sessions');
    const en = run(['scan', '--agent', 'pi']);
    expect(en.stdout).toContain('  home      ');
    const doctor = run(['doctor'], ZH);
    expect(doctor.status).toBe(0);
    expect(doctor.stdout).toContain('  可执行文件  ');
    expect(doctor.stdout).toContain('  备份密钥    ');
    const plan = run(['plan', '--agent', 'pi', '--older-than', '0d'], ZH);
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^pi 主目录：/);
    expect(plan.stdout).toMatch(/\n计划：\d+ 项，/);
  });

  it('scan --json, plan --json and clean --json are the same in both languages', () => {
    // Volatile fields (scan times, ids made per run) are compared by shape only.
    const stable = (s: string): string => s.replace(/"(scannedAt|generatedAt|snapshotId|operationId|at|createdAt)":"[^"]*"/g, '"$1":"…"');
    for (const args of [
      ['scan', '--json'],
      ['scan', '--agent', 'pi', '--json'],
      ['plan', '--agent', 'pi', '--older-than', '0d', '--json'],
    ]) {
      const en = run(args);
      const zh = run(args, ZH);
      expect(en.status, en.stderr).toBe(0);
      expect(zh.status, zh.stderr).toBe(0);
      expect(stable(zh.stdout), args.join(' ')).toBe(stable(en.stdout));
    }
    // clean --json without --yes refuses in words (stderr) and prints no JSON; with a plan the refusal is the same in both.
    const plan = run(['plan', '--agent', 'pi', '--older-than', '0d', '--json']);
    const file = join(t.root, 'plan.json');
    writeFileSync(file, plan.stdout);
    const en = run(['clean', '--plan', file, '--json']);
    const zh = run(['clean', '--plan', file, '--json'], ZH);
    expect(en.status).toBe(2);
    expect(zh.status).toBe(2);
    expect(zh.stdout).toBe(en.stdout);
    expect(zh.stderr).toContain('未删除任何东西：加上 --yes');
  });
});
