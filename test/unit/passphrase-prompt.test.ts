// The one passphrase prompt: nothing asked when the key ring unlocks the
// key, one masked prompt for a key that exists, and for a new key the rule
// checked before the second prompt and the two typings compared. A refusal
// (the rule, a repeat that differs, a passphrase `use` calls wrong) asks
// again at once, saying why — three tries, then it gives up on the status
// line; the next prompt is open before the refused one's answer returns.

import { describe, expect, it } from 'vitest';
import { PASSPHRASE_TRIES, promptPassphrase } from '../../src/app/passphrase-prompt.js';
import type { PassphraseRequest, PassphraseVerdict } from '../../src/screens/screen.js';
import type { TextInputOptions } from '../../src/widgets/text-input.js';

/** A host that answers each prompt from the list (null: Esc) and records what was asked and said. */
function host(answers: (string | null)[]) {
  const asked: TextInputOptions[] = [];
  const messages: [string, string | undefined][] = [];
  let open: TextInputOptions | null = null;
  const h = {
    asked,
    messages,
    /** The prompt open now (after the answers ran out). */
    open: () => open,
    openInput: (o: TextInputOptions) => {
      asked.push(o);
      open = o;
      const a = answers.shift();
      if (a === undefined) return;
      open = null;
      if (a === null) o.onCancel();
      else o.onSubmit(a);
    },
    message: (text: string, kind?: 'info' | 'error') => void messages.push([text, kind]),
  };
  return h;
}

const newKey: PassphraseRequest['newKey'] = { label: 'New:', repeat: 'Again:' };

function run(h: ReturnType<typeof host>, req: Partial<PassphraseRequest>, use: (p: string) => Promise<PassphraseVerdict> = async () => undefined): string[] {
  const got: string[] = [];
  promptPassphrase(h, { needed: true, label: 'Passphrase:', cancelled: 'Cancelled.', ...req }, (p) => {
    got.push(p);
    return use(p);
  });
  return got;
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('promptPassphrase', () => {
  it('asks nothing when no passphrase is needed', () => {
    const h = host([]);
    expect(run(h, { needed: false, newKey })).toEqual(['']);
    expect(h.asked).toEqual([]);
  });

  it('asks once, masked and bounded, for an existing key', () => {
    const h = host(['short']);
    expect(run(h, {})).toEqual(['short']);
    expect(h.asked.map((o) => [o.label, o.mask, o.maxLength, o.note])).toEqual([['Passphrase:', true, 1024, undefined]]);
  });

  it('Esc cancels with the caller’s line, and its hook runs', () => {
    const h = host([null]);
    let hooked = 0;
    expect(run(h, { onCancel: () => hooked++ })).toEqual([]);
    expect(h.messages).toEqual([['Cancelled.', undefined]]);
    expect(hooked).toBe(1);
  });

  it('a new key: the rule refuses before the second prompt and asks again at once, saying why', () => {
    const h = host(['short']);
    expect(run(h, { newKey })).toEqual([]);
    // The second try is open: what is typed next goes into it, not to the screen.
    expect(h.asked.map((o) => o.label)).toEqual(['New:', 'New · try 2 of 3:']);
    expect(h.open()).toBe(h.asked[1]);
    expect(h.asked[1]!.mask).toBe(true);
    expect(h.asked[1]!.note?.title).toBe('Passphrase refused');
    expect(h.asked[1]!.note?.text).toMatch(/at least 8 characters.*Type it again, or Esc to cancel\.$/);
    expect(h.messages).toEqual([]);
  });

  it('a new key: a repeat that differs asks for both again; two equal ones are accepted', () => {
    const a = host(['a long passphrase', 'a long passphrasE', 'a long passphrase', 'a long passphrase']);
    expect(run(a, { newKey })).toEqual(['a long passphrase']);
    expect(a.asked.map((o) => o.label)).toEqual(['New:', 'Again:', 'New · try 2 of 3:', 'Again · try 2 of 3:']);
    expect(a.asked[2]!.note).toEqual({ title: 'Passphrase refused', text: 'The two passphrases differ. Type it again, or Esc to cancel.' });
    expect(a.messages).toEqual([]);
  });

  it('gives up after three refusals: the status line says so and holds the keys until Enter or Esc', () => {
    const h = host(['short', 'a long passphrase', 'different one!', 'tiny']);
    let hooked = 0;
    expect(run(h, { newKey, cancelled: 'Cleanup cancelled; nothing was removed.', onCancel: () => hooked++ })).toEqual([]);
    expect(h.asked).toHaveLength(PASSPHRASE_TRIES + 2);
    // The line that gave up is open: it takes no characters (a retry typed ahead goes nowhere), Enter or Esc closes it.
    const last = h.open()!;
    expect(last.label).toBe('Refused 3 times. Cleanup cancelled; nothing was removed. (Enter or Esc)');
    expect(last.maxLength).toBe(0);
    expect(last.note?.title).toBe('Passphrase refused');
    expect(h.messages).toEqual([]);
    expect(hooked).toBe(0);
    last.onSubmit('');
    expect(h.messages).toEqual([['Refused 3 times. Cleanup cancelled; nothing was removed.', 'error']]);
    expect(hooked).toBe(1);
  });

  it('a wrong passphrase (the caller’s verdict) asks again, then gives up after the third', async () => {
    const h = host(['one', 'two', 'three', null]);
    const got = run(h, {}, async (): Promise<PassphraseVerdict> => 'wrong');
    for (let i = 0; i < 4; i++) await flush();
    expect(got).toEqual(['one', 'two', 'three']);
    expect(h.asked.map((o) => o.label)).toEqual([
      'Passphrase:',
      'Passphrase · try 2 of 3:',
      'Passphrase · try 3 of 3:',
      'Refused 3 times. Cancelled. (Enter or Esc)',
    ]);
    expect(h.asked[1]!.note?.title).toBe('Wrong passphrase');
    expect(h.asked[1]!.note?.text).toBe('This passphrase does not unlock the backup key. Type it again, or Esc to cancel.');
    expect(h.messages).toEqual([['Refused 3 times. Cancelled.', 'error']]);
  });

  it('a right one after a wrong one ends the prompt', async () => {
    const h = host(['wrong one', 'right one']);
    const got = run(h, {}, async (p) => (p === 'wrong one' ? 'wrong' : undefined));
    await flush();
    expect(got).toEqual(['wrong one', 'right one']);
    expect(h.asked).toHaveLength(2);
    expect(h.messages).toEqual([]);
  });
});
