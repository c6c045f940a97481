// The one passphrase prompt: nothing asked when the key ring unlocks the
// key, one masked prompt for a key that exists, and for a new key the rule
// checked before the second prompt and the two typings compared.

import { describe, expect, it } from 'vitest';
import { promptPassphrase } from '../../src/app/passphrase-prompt.js';
import type { PassphraseRequest } from '../../src/screens/screen.js';
import type { TextInputOptions } from '../../src/widgets/text-input.js';

function host(answers: (string | null)[]) {
  const asked: TextInputOptions[] = [];
  const messages: [string, string | undefined][] = [];
  return {
    asked,
    messages,
    openInput: (o: TextInputOptions) => {
      asked.push(o);
      const a = answers.shift();
      if (a === undefined) throw new Error(`no answer for ${o.label}`);
      if (a === null) o.onCancel();
      else o.onSubmit(a);
    },
    message: (text: string, kind?: 'info' | 'error') => void messages.push([text, kind]),
  };
}

const newKey: PassphraseRequest['newKey'] = { label: 'New:', repeat: 'Again:', problem: (p) => `${p} Nothing was done.`, differ: 'They differ.' };

function run(h: ReturnType<typeof host>, req: Partial<PassphraseRequest>): string[] {
  const got: string[] = [];
  promptPassphrase(h, { needed: true, label: 'Passphrase:', onCancel: () => h.message('Cancelled.'), ...req }, (p) => got.push(p));
  return got;
}

describe('promptPassphrase', () => {
  it('asks nothing when no passphrase is needed', () => {
    const h = host([]);
    expect(run(h, { needed: false, newKey })).toEqual(['']);
    expect(h.asked).toEqual([]);
  });

  it('asks once, masked and bounded, for an existing key', () => {
    const h = host(['short']);
    expect(run(h, {})).toEqual(['short']);
    expect(h.asked.map((o) => [o.label, o.mask, o.maxLength])).toEqual([['Passphrase:', true, 1024]]);
  });

  it('Esc cancels with the caller’s message', () => {
    const h = host([null]);
    expect(run(h, {})).toEqual([]);
    expect(h.messages).toEqual([['Cancelled.', undefined]]);
  });

  it('a new key: the rule refuses before the second prompt', () => {
    const h = host(['short']);
    expect(run(h, { newKey })).toEqual([]);
    expect(h.asked.map((o) => o.label)).toEqual(['New:']);
    expect(h.messages).toHaveLength(1);
    expect(h.messages[0]![0]).toMatch(/Nothing was done\.$/);
    expect(h.messages[0]![1]).toBe('error');
  });

  it('a new key: two different typings are refused, two equal ones accepted', () => {
    const a = host(['a long passphrase', 'a long passphrasE']);
    expect(run(a, { newKey })).toEqual([]);
    expect(a.messages).toEqual([['They differ.', 'error']]);
    const b = host(['a long passphrase', 'a long passphrase']);
    expect(run(b, { newKey })).toEqual(['a long passphrase']);
    expect(b.asked.map((o) => o.label)).toEqual(['New:', 'Again:']);
  });
});
