// The engine refuses a broken environment with its own ConfigError (it knows
// no exit codes); the command line turns it into a UsageError with the same
// sentence, which exits 2. The binary's side is in start-up.test.ts.

import { describe, expect, it } from 'vitest';
import { asUsageError, UsageError } from '../../src/cli/usage-error.js';
import { ConfigError } from '../../src/engine/core/config-error.js';
import { checkEnvDirs, homeOf, ownDirs } from '../../src/engine/host/own-dirs.js';
import { exitCodeFor } from '../../src/terminal/terminal-out.js';

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return expect.fail('expected a throw');
};

describe('ConfigError → UsageError', () => {
  it('the engine throws a ConfigError for HOME, its own dirs and the XDG dirs', () => {
    const home = thrown(() => homeOf({ HOME: 'rel' }));
    expect(home).toBeInstanceOf(ConfigError);
    expect((home as Error).message).toBe('HOME is not set to an absolute path; set HOME and try again.');
    expect(thrown(() => ownDirs({ HOME: '/h', CLEANERX_STATE_DIR: 'rel' }))).toBeInstanceOf(ConfigError);
    const xdg = thrown(() => checkEnvDirs({ HOME: '/h', XDG_DATA_HOME: 'rel' }, []));
    expect(xdg).toBeInstanceOf(ConfigError);
    expect((xdg as Error).message).toBe('XDG_DATA_HOME is a relative path ("rel"); set it to an absolute path or unset it.');
    expect(xdg).not.toBeInstanceOf(UsageError);
  });

  it('carries no exit code of its own: the CLI maps it to a usage error, same sentence and stack, exit 2', () => {
    const e = new ConfigError('CLEANERX_STATE_DIR must be an absolute path (got "rel").');
    expect(exitCodeFor(e)).toBe(1);
    const u = asUsageError(e) as Error;
    expect(u).toBeInstanceOf(UsageError);
    expect(u.message).toBe(e.message);
    expect(u.stack).toBe(e.stack);
    expect(exitCodeFor(u)).toBe(2);
  });

  it('leaves every other error as it is', () => {
    const plain = new Error('boom');
    expect(asUsageError(plain)).toBe(plain);
    const usage = new UsageError('bad flag');
    expect(asUsageError(usage)).toBe(usage);
    expect(asUsageError('text')).toBe('text');
  });
});
