// Back up only (issue #29 part 6): the verified encrypted backup of the
// marked items through the usual plan → journal → preflight → backup steps,
// and nothing removed. The plan is the delete plan's (same items, same
// paths, same export route for OpenCode), marked so the executor stops
// after the backup's catalog entry. Only items cleanerx can restore are
// offered: any other item blocks the plan in one sentence.

import { agentName } from '../core/agents.js';
import { t, type Language } from '../i18n/index.js';
import type { CleanupPlan } from '../core/model.js';

export function asBackupOnly(plan: CleanupPlan, lang?: Language): CleanupPlan {
  const agent = agentName(plan.agent);
  const blockers = [...plan.blockers];
  if (!plan.backupEligible) blockers.push(t('backupOnly.notEligible', { why: plan.backupWhyNot ?? '' }, lang));
  else for (const i of plan.items.filter((x) => !x.recoverable)) blockers.push(t('backupOnly.unrestorable', { label: i.label, agent }, lang));
  return {
    ...plan,
    action: 'backupOnly',
    irreversible: false,
    estimatedBackupBytes: plan.items.reduce((a, i) => a + i.bytes, 0),
    backupNotCovered: undefined,
    backupUncoveredIds: undefined,
    routeNotes: [t('backupOnly.note', { agent }, lang)],
    blockers,
  };
}
