// pi's part of `--demo`: a store with forks, hostile entries and its config.

import { join } from 'node:path';
import { buildPiFixture } from './fixture.js';

export function buildPiDemo(env: Readonly<Record<string, string>>, now: number): void {
  buildPiFixture({
    agentDir: env.PI_CODING_AGENT_DIR!,
    projects: 24,
    sessionsPerProject: 14,
    seed: 7,
    now,
    cwdRoot: join(env.HOME!, 'src'),
    forkRate: 0.2,
    hostile: true,
    config: true,
    bodyBytes: 6000,
  });
}
