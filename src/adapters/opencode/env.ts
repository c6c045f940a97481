// OPENCODE_DB, the one variable of OpenCode's that cleanerx checks before it
// runs. It keeps OpenCode's own forms: ":memory:", an absolute path, or a bare
// file name inside the data dir; anything else would resolve against whatever
// directory cleanerx starts in.

import { isAbsolute } from 'node:path';
import type { AgentEnvVar } from '../../engine/core/adapter.js';
import { localized } from '../../engine/i18n/localized.js';
import { cleanText } from '../../engine/core/text.js';

const RELATIVE_DB = {
  en: 'OPENCODE_DB is a relative path ("{value}"); set it to an absolute path, a file name inside OpenCode\'s data dir, or unset it.',
  zh: 'OPENCODE_DB 是相对路径（"{value}"）；请设为绝对路径、OpenCode 数据目录中的文件名，或取消设置。',
};

export const OPENCODE_DB_VAR: AgentEnvVar = {
  name: 'OPENCODE_DB',
  check: (db) =>
    db !== ':memory:' && !isAbsolute(db) && (db.includes('/') || db === '.' || db === '..') ? localized(RELATIVE_DB, { value: cleanText(db, 200) }) : null,
};
