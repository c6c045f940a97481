// Request validation at the engine boundary (original-reference §1.5).

import { NO_PROJECT_ID, type PageRequest, type SessionFilter, type SortKey } from './model.js';

export class RequestError extends Error {
  readonly request = true;
}

const UPDATED = ['all', 'within7', 'within30', 'older30', 'older90', 'agentSweep'];
const SORTS: SortKey[] = ['updated', 'size', 'title'];
const MAX_TOGGLED = 200_000;

export function validateFilter(f: SessionFilter, knownProject: (id: string) => boolean): SessionFilter {
  if (!f || typeof f !== 'object') throw new RequestError('filter must be an object');
  if (f.text !== undefined && (typeof f.text !== 'string' || f.text.length > 512)) throw new RequestError('search text is limited to 512 characters');
  if (f.source !== undefined && (typeof f.source !== 'string' || f.source.length > 128)) throw new RequestError('source filter is limited to 128 characters');
  if (f.updated !== undefined && !UPDATED.includes(f.updated)) throw new RequestError(`unknown updated filter "${String(f.updated)}"`);
  if (f.state !== undefined && f.state !== 'current' && f.state !== 'archived') throw new RequestError('state must be current or archived');
  if (f.projectId !== undefined && f.projectId !== NO_PROJECT_ID && !knownProject(f.projectId)) throw new RequestError(`unknown project id "${f.projectId}"`);
  return f;
}

export function validatePage(req: PageRequest, knownProject: (id: string) => boolean): void {
  if (!Number.isInteger(req.limit) || req.limit < 1 || req.limit > 100) throw new RequestError('page limit must be 1–100');
  if (!Number.isInteger(req.offset) || req.offset < 0) throw new RequestError('page offset must be a non-negative integer');
  if (!SORTS.includes(req.sort)) throw new RequestError(`unknown sort "${String(req.sort)}"`);
  if (req.reverse !== undefined && typeof req.reverse !== 'boolean') throw new RequestError('reverse must be true or false');
  const sc = req.scope;
  if (!sc || (sc.view !== 'tree' && sc.view !== 'flat')) throw new RequestError('scope.view must be tree or flat');
  if (sc.expansion) {
    if (!['default', 'allOpen', 'allClosed'].includes(sc.expansion.base)) throw new RequestError('unknown expansion base');
    if (!Array.isArray(sc.expansion.toggled) || sc.expansion.toggled.length > MAX_TOGGLED) throw new RequestError('expansion list is invalid');
  }
  validateFilter(req.filter, knownProject);
}

export function filterActive(f: SessionFilter): boolean {
  return Boolean((f.text && f.text.trim()) || (f.updated && f.updated !== 'all') || f.state || f.source);
}
