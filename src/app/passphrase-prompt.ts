// The one passphrase prompt of the app: masked, 1024 characters at most,
// never stored. A new key's passphrase is checked against the same rule the
// engine applies (passphrase-rule) before it is asked again, so a refusal
// comes before the second typing, not after a failed backup.

import { passphraseProblem } from '../engine/core/passphrase-rule.js';
import type { AppContext, PassphraseRequest } from '../screens/screen.js';

export function promptPassphrase(host: Pick<AppContext, 'openInput' | 'message'>, req: PassphraseRequest, then: (passphrase: string) => void): void {
  if (!req.needed) return then('');
  const ask = (label: string, done: (v: string) => void): void =>
    host.openInput({ label, mask: true, maxLength: 1024, onSubmit: done, onCancel: () => req.onCancel() });
  const fresh = req.newKey;
  if (!fresh) return ask(req.label, then);
  ask(fresh.label, (first) => {
    const problem = passphraseProblem(first);
    if (problem) return host.message(fresh.problem(problem), 'error');
    ask(fresh.repeat, (second) => {
      if (second !== first) return host.message(fresh.differ, 'error');
      then(first);
    });
  });
}
