// The one passphrase prompt of the app: masked, 1024 characters at most,
// never stored. It asks again as ssh, gpg and gh do: a new key's passphrase
// that breaks the rule (passphrase-rule, the engine's own) or a repeat that
// differs, and a passphrase that does not unlock the key (the caller's `use`
// says `wrong`), each bring the prompt back at once with a box saying why —
// three tries in all, then it gives up: the status line says so and keeps
// the keys until Enter or Esc. The prompt is open again before the next key
// is read, so nothing typed as the retry reaches the screen behind it.

import { t } from '../engine/i18n/index.js';
import { passphraseProblem } from '../engine/core/passphrase-rule.js';
import type { AppContext, PassphraseRequest, PassphraseVerdict } from '../screens/screen.js';

/** Tries in all before the prompt gives up (ssh's and sudo's three). */
export const PASSPHRASE_TRIES = 3;

type Use = (passphrase: string) => Promise<PassphraseVerdict>;

/** Why the last try was refused: the box over the prompt that asks again. */
interface Refusal {
  title: string;
  text: string;
}

export function promptPassphrase(host: Pick<AppContext, 'openInput' | 'message'>, req: PassphraseRequest, use: Use): void {
  if (!req.needed) {
    void use('');
    return;
  }
  const cancelled = (): void => {
    host.message(req.cancelled);
    req.onCancel?.();
  };
  /**
   * The third refusal: the status line says the prompt gave up, and holds the
   * keys until Enter or Esc, so a retry typed ahead goes nowhere either.
   */
  const gaveUp = (last: Refusal): void => {
    const said = t('pass.gaveUp', { n: PASSPHRASE_TRIES, cancelled: req.cancelled });
    const end = (): void => {
      host.message(said, 'error');
      req.onCancel?.();
    };
    host.openInput({ label: `${said} ${t('pass.gaveUpKeys')}`, maxLength: 0, note: { ...last, footer: t('pass.gaveUpFooter') }, onSubmit: end, onCancel: end });
  };
  /** The label of try `n`: the second and third say which they are. */
  const labelOf = (label: string, n: number): string => (n > 1 ? t('pass.again', { label: label.replace(/[:：]\s*$/, ''), n, max: PASSPHRASE_TRIES }) : label);
  const ask = (label: string, n: number, refusal: Refusal | undefined, done: (v: string) => void): void =>
    host.openInput({
      label: labelOf(label, n),
      mask: true,
      maxLength: 1024,
      note: refusal ? { title: refusal.title, text: `${refusal.text} ${t('pass.tryAgain')}` } : undefined,
      onSubmit: done,
      onCancel: cancelled,
    });
  /** Try `n` refused: the next one, or the end. */
  const refuse = (n: number, refusal: Refusal): void => {
    if (n >= PASSPHRASE_TRIES) return gaveUp(refusal);
    attempt(n + 1, refusal);
  };
  const hand = (n: number, passphrase: string): void => {
    // Any other failure is the caller's to show.
    use(passphrase).then(
      (v) => {
        if (v === 'wrong') refuse(n, { title: t('pass.wrongTitle'), text: t('pass.wrong') });
      },
      () => undefined,
    );
  };
  const fresh = req.newKey;
  const attempt = (n: number, refusal?: Refusal): void => {
    if (!fresh) return ask(req.label, n, refusal, (p) => hand(n, p));
    ask(fresh.label, n, refusal, (first) => {
      const problem = passphraseProblem(first);
      if (problem) return refuse(n, { title: t('pass.refusedTitle'), text: problem });
      ask(fresh.repeat, n, undefined, (second) => {
        if (second !== first) return refuse(n, { title: t('pass.refusedTitle'), text: t('pass.differ') });
        hand(n, first);
      });
    });
  };
  attempt(1);
}
