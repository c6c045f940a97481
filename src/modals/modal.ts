// What a dialog over the screens is (the review, the progress of a cleanup,
// the recovery of an interrupted one): it has the keys while it is open and
// is painted above everything else.

import type blessed from 'blessed';
import type { KeyContext } from '../widgets/bindings.js';

export interface Modal {
  readonly box: blessed.Widgets.BoxElement;
  /** The modal's keys: dispatch, footer and help read the same table. */
  keyContext(): KeyContext;
  /** Set by a binding when the modal is done; the app then destroys it. */
  readonly closed: boolean;
  paint(): void;
  destroy(): void;
}
