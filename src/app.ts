import type { AppFlags } from './cli.js';
export async function runApp(_flags: AppFlags): Promise<number> {
  return 0;
}
