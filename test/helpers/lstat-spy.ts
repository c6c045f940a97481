// Which paths fs.lstatSync was asked for while a function ran: how the walk
// log tests prove that a stat the scan already took is not taken again.

import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { vi } from 'vitest';

/** The lstat calls made while `f` runs, by path. */
export async function lstatsDuring<T>(f: () => Promise<T>): Promise<{ value: T; paths: string[] }> {
  const paths: string[] = [];
  const lstat = fs.lstatSync;
  vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    paths.push(String(p));
    return (lstat as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.lstatSync);
  syncBuiltinESMExports();
  try {
    return { value: await f(), paths };
  } finally {
    vi.restoreAllMocks();
    syncBuiltinESMExports();
  }
}
