// An engine without backups (#26 item 5: the mutants of
// engine/cleanup/backup-service.ts): its catalog is empty and every other
// call is refused with one sentence, as a request error (the user's message,
// not a crash).

import { describe, expect, it } from 'vitest';
import { NO_BACKUPS } from '../../src/engine/cleanup/backup-service.js';
import { RequestError } from '../../src/engine/core/validate.js';

describe('NO_BACKUPS', () => {
  it('lists no backups', async () => {
    expect(await NO_BACKUPS.list('/nowhere')).toEqual([]);
  });

  it('refuses every other call, as a request error that says why', async () => {
    const calls = Object.entries(NO_BACKUPS).filter(([name]) => name !== 'list') as [string, (...a: unknown[]) => Promise<unknown>][];
    expect(calls.map(([name]) => name).sort()).toEqual(
      [
        'delete',
        'discardCandidate',
        'exportKey',
        'keyStatus',
        'restore',
        'settleRestores',
        'switchKeyStore',
        'take',
        'unlockKey',
        'unlockOrCreateKey',
        'verify',
      ].sort(),
    );
    for (const [name, f] of calls) {
      const e = await f('/nowhere', 'x', 'y').then(
        () => new Error(`${name} resolved`),
        (err: unknown) => err,
      );
      expect(e, name).toBeInstanceOf(RequestError);
      expect((e as Error).message, name).toBe('Backups are not available in this build of cleanerx.');
    }
  });
});
