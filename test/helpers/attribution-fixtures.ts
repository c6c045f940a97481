// Hand-made pieces for the attribution walk's tests: an installation of a
// home, a plain item holding paths, and files written into a tree.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Installation, Item } from '../../src/engine/core/model.js';

/** An installation of `home` with data and no program (pi's unless told). */
export const inst = (home: string, agent: Installation['agent'] = 'pi'): Installation =>
  ({
    agent,
    displayName: agent,
    memoryNotice: '',
    state: 'dataOnly',
    home,
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
  }) as Installation;

/** A safe cache item that holds `paths`. */
export const item = (id: string, paths: string[]): Item => ({
  id,
  category: 'cache',
  label: id,
  paths,
  bytes: 0,
  risk: 'safe',
  recoverable: false,
  selectable: true,
  metadata: {},
});

/** Writes each relative path's body under `root`, making its folders. */
export function put(root: string, files: Record<string, string>): void {
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
}
