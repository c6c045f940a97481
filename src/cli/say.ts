// The catalog's text as the CLI's SafeText: t() fills the placeholders, the
// `safe` tag cleans the whole line (values from agents and files included).

import { type MessageKey, type Params, t } from '../engine/i18n/index.js';
import { padWidth } from '../engine/core/text.js';
import { safe, type SafeText } from '../engine/core/text.js';

export function say(key: MessageKey, params?: Params): SafeText {
  return safe`${t(key, params)}`;
}

/** A column label padded by display width (Chinese labels are two columns a character). */
export function label(key: MessageKey, width: number): SafeText {
  return safe`${padWidth(t(key), width)}`;
}
