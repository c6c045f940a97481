// Home resolution shared by the adapters: env var, then the default under HOME.
// (A settings override is applied by the engine before this is consulted.)

import { isAbsolute, join } from 'node:path';
import type { AgentEnvVar, HomeResolution, HostContext } from '../../engine/core/adapter.js';
import { t } from '../../engine/i18n/index.js';
import { cleanText } from '../../engine/core/text.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { ScanWarning } from '../../engine/core/model.js';
import { homeOf } from '../../engine/host/own-dirs.js';

/** A variable that moves an agent's home: an absolute path, or one under "~/" (expanded against HOME). */
export function homeDirVar(name: string): AgentEnvVar {
  return {
    name,
    check: (v) => (isAbsolute(v) || v === '~' || v.startsWith('~/') ? null : t('dirs.relative', { name, value: cleanText(v, 200) })),
  };
}

export function expandTilde(v: string, ctx: HostContext): string {
  if (v === '~') return homeOf(ctx.env);
  if (v.startsWith('~/')) return join(homeOf(ctx.env), v.slice(2));
  return v;
}

export function resolveAgentHome(ctx: HostContext, envVar: string, defaultParts: string[], transform: (v: string) => string = (v) => v): HomeResolution {
  const raw = ctx.env[envVar];
  if (raw && raw.trim()) {
    const v = transform(raw.trim());
    // A relative env value would resolve against whatever directory cleanerx
    // was started in; ignore it rather than guess.
    if (isAbsolute(v)) return { home: v, source: 'env' };
  }
  return { home: join(homeOf(ctx.env), ...defaultParts), source: 'default' };
}

type HomeCheck = { ok: false } | { ok: true; readOnly?: string };

/**
 * The agent home as found: missing (nothing to list), not a directory (a
 * warning, nothing to list), a symbolic link (listed, but read-only), or fine.
 */
export function checkHome(home: string, what: string, warnings: ScanWarning[]): HomeCheck {
  const st = lstatSyncOrNull(home);
  if (!st) return { ok: false };
  if (st.isSymbolicLink()) {
    const readOnly = `${what} is a symbolic link; cleanerx only reads it.`;
    warnings.push({ path: home, reason: readOnly });
    return { ok: true, readOnly };
  }
  if (!st.isDirectory()) {
    warnings.push({ path: home, reason: `${what} is not a directory.` });
    return { ok: false };
  }
  return { ok: true };
}
