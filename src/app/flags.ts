// What the command line hands the app: the bare app's flags.

import type { AgentKind } from '../engine/core/model.js';

export interface AppFlags {
  demo: boolean;
  keep: boolean;
  readOnly: boolean;
  /** `--no-color` (NO_COLOR in the env does the same). */
  noColor?: boolean;
  /** `--agent A`: open on A (else the app picks the agent with the most data). */
  initialAgent?: AgentKind;
}
