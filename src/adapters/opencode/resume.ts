// OpenCode 1.18 `opencode [project] --session <id>` ("session id to
// continue"): started in the session's directory, its project.

import type { ResumeCommand } from '../../engine/core/shell-quote.js';

export const opencodeResume = (s: { id: string; cwd: string | null }): ResumeCommand => ({ cwd: s.cwd, command: ['opencode', '--session'], target: s.id });
