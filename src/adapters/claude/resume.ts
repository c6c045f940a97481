// `claude --resume <id>` finds the transcript under the project of the
// directory it starts in, so the command goes there first.

import type { ResumeCommand } from '../../engine/core/shell-quote.js';

export const claudeResume = (s: { id: string; cwd: string | null }): ResumeCommand => ({ cwd: s.cwd, command: ['claude', '--resume'], target: s.id });
