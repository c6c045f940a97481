// Terminal-safe text: escape stripping, display width, fitting.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  charWidth,
  cleanMultiline,
  cleanText,
  displayForm,
  displayWidth,
  fitWidth,
  padWidth,
  safe,
  safeJson,
  safeText,
  truncateChars,
} from '../../src/engine/core/text.js';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('cleanText', () => {
  it('strips CSI sequences', () => {
    expect(cleanText('a\x1b[31mred\x1b[0m b')).toBe('a red b');
    expect(cleanText('x\x1b[2J\x1b[?1049hy')).toBe('x y');
  });

  it('strips OSC sequences ended by BEL or ST, including hyperlinks and titles', () => {
    expect(cleanText('before\x1b]0;pwned\x07after')).toBe('before after');
    expect(cleanText('\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\')).toBe('click');
    expect(cleanText('x\x1b]52;c;SGVsbG8=\x07y')).toBe('x y');
  });

  it('strips DCS/APC strings and two-byte escapes', () => {
    expect(cleanText('a\x1bPq#0;2;0;0;0\x1b\\b')).toBe('a b');
    expect(cleanText('a\x1b_payload\x1b\\b')).toBe('a b');
    expect(cleanText('a\x1bcb')).toBe('a b');
  });

  it('strips 8-bit C1 controls and CSI', () => {
    expect(cleanText('a\x9b31mred')).toBe('a red');
    expect(cleanText('a\x85b\x90c')).toBe('a b');
    // 8-bit OSC / DCS / APC strings go whole, as the terminal would consume them.
    expect(cleanText('a\x9d0;PWNED\x9cb')).toBe('a b');
    expect(cleanText('a\x9d52;c;SGVsbG8=\x07b\x9fapc\x1b\\c')).toBe('a b c');
  });

  it('removes bidi controls that could reorder text', () => {
    const s = cleanText('file\u202egnp.exe \u2066x\u2069 \u200fy\u200e');
    expect(s).not.toMatch(UNSAFE);
    expect(s).toBe('file gnp.exe x y');
  });

  it('turns C0 controls into single spaces and trims', () => {
    expect(cleanText('  a\tb\r\nc\x00d\x07e\x7f  ')).toBe('a b c d e');
  });

  it('truncates to a number of code points with an ellipsis', () => {
    expect(cleanText('abcdef', 3)).toBe('abc…');
    expect(cleanText('abc', 3)).toBe('abc');
    expect(cleanText('🚀🚀🚀🚀', 2)).toBe('🚀🚀…');
  });

  it('never leaves a control character or ESC, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 1, max: 200 }), (s, max) => {
        const out = cleanText(s, max);
        expect(out).not.toMatch(UNSAFE);
        expect(Array.from(out).length).toBeLessThanOrEqual(max + 1);
      }),
    );
  });
});

describe('invisible characters (one rule with the width)', () => {
  it('removes zero-width and format characters: U+200B, U+200C, U+200D, U+00AD, U+FEFF, U+2060, tags, fillers', () => {
    expect(cleanText('a\u200bb\u200cc\u200dd\u00ade\ufefff\u2060g\u{e0041}h\u3164i\u034fj')).toBe('abcdefghij');
    expect(displayWidth(cleanText('a\u200bb\u00adc'))).toBe(3);
  });

  it('turns bidi controls, U+061C included, into a space like other controls', () => {
    expect(cleanText('a\u061cb\u202ec\u2067d')).toBe('a b c d');
  });

  it('shows a ZWJ sequence as its parts, drops VS16, VS15 and skin tones', () => {
    expect(cleanText('👨\u200d👩\u200d👧')).toBe('👨👩👧');
    expect(displayWidth(cleanText('👨\u200d👩\u200d👧'))).toBe(6);
    expect(cleanText('❤\ufe0f ☔\ufe0e 👍🏽')).toBe('❤ ☔ 👍');
    expect(displayWidth(cleanText('❤\ufe0f'))).toBe(1);
  });

  it('keeps flags, shows half a flag as its letter, never cuts a flag in two', () => {
    expect(cleanText('🇩🇪🇯')).toBe('🇩🇪J');
    expect(displayWidth('🇩🇪')).toBe(2);
    expect(truncateChars('ab🇩🇪', 3)).toBe('ab…');
  });

  it('unassigned code points and lone surrogates become U+FFFD; a mark without a base goes', () => {
    expect(cleanText('a\u{50000}b\ud800c')).toBe('a\ufffdb\ufffdc');
    expect(cleanText('\u0301x \u0308y')).toBe('x y');
    expect(cleanText('e\u0301')).toBe('\u00e9');
    // tmux 3.3 draws a wide character without the marks after it, xterm with them: shown by neither.
    expect(cleanText('🚀\u0301 각\u0301 q\u0301')).toBe('🚀 각 q\u0301');
  });

  it('the display form keeps newlines and tags, and is idempotent (property)', () => {
    expect(displayForm('{bold}a\u200b{/bold}\nb\x1b]0;t\x07c')).toBe('{bold}a{/bold}\nb c');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const once = displayForm(s);
        expect(displayForm(once)).toBe(once);
        expect(cleanText(cleanText(s))).toBe(cleanText(s));
        // Newline and tab are layout (blessed turns tabs into spaces).
        expect(once.replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);
      }),
    );
  });
});

describe('SafeText', () => {
  it('safe`` cleans every interpolated value and keeps the literal and the padding', () => {
    const name = '\x1b]0;PWNED\x07pi\u009b31m';
    expect(safe`  running   ${name} (pid ${42})`).toBe('  running    pi  (pid 42)');
    expect(safe`${'a'.padEnd(4)}|${'7'.padStart(3)}`).toBe('a   |  7');
    expect(safe`x ${'a\nb'} y`).toBe('x a b y');
    expect(safeText(new Error('bad \x1b[2Jthing'))).toBe('bad thing');
    expect(safeText(undefined)).toBe('');
  });

  it('safeJson keeps the data exact and carries no raw control, C1, bidi or invisible character (property)', () => {
    const hostile = '\x1b]0;PWNED\x07\u009b31m\u009d52;c;x\u009c\u202e\u200b\u00ad\ufeff\u2028';
    expect(safeJson({ hostile })).toBe('{"hostile":"\\u001b]0;PWNED\\u0007\\u009b31m\\u009d52;c;x\\u009c\\u202e\\u200b\\u00ad\\ufeff\\u2028"}');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const out = safeJson({ s });
        // eslint-disable-next-line no-control-regex
        expect(out).not.toMatch(/[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00ad]/);
        expect(JSON.parse(out)).toEqual({ s });
      }),
    );
  });
});

describe('cleanMultiline', () => {
  it('keeps newlines and strips escapes on each line', () => {
    expect(cleanMultiline('one\x1b[1m bold\x1b[0m\r\ntwo\tx\n\x1b]0;t\x07three')).toBe('one  bold\ntwo  x\n three');
  });

  it('never leaves controls other than newline', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const out = cleanMultiline(s);
        // eslint-disable-next-line no-control-regex
        expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
      }),
    );
  });
});

describe('truncateChars', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(truncateChars('😀😀😀', 3)).toBe('😀😀😀');
    expect(truncateChars('😀😀😀😀', 3)).toBe('😀😀😀…');
  });

  it('cuts exactly where the code-point rule says, short strings included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀', '\u{1f1eb}', '\u{1f1f7}', '\u0301'), maxLength: 12 }),
        fc.integer({ min: 0, max: 14 }),
        (s, max) => {
          const cps = Array.from(s);
          if (cps.length <= max) expect(truncateChars(s, max)).toBe(s);
          else expect(truncateChars(s, max).endsWith('…')).toBe(true);
          expect(Array.from(truncateChars(s, max)).length).toBeLessThanOrEqual(max + 1);
        },
      ),
    );
  });
});

describe('cleanText fast path (printable ASCII words)', () => {
  // A trailing NUL sends the same text down the full path (it becomes a space, then is trimmed): both must agree.
  it('gives what the full path gives', () => {
    const ascii = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '~', '!', ' ', '  ', '\t', '\n', '\x7f', 'é'), maxLength: 40 });
    fc.assert(
      fc.property(ascii, fc.integer({ min: 1, max: 12 }), (s, max) => {
        expect(cleanText(s, max)).toBe(cleanText(`${s}\x00`, max));
      }),
      { numRuns: 2000 },
    );
    expect(cleanText('fix the build', 5)).toBe('fix t…');
    expect(cleanText('two  spaces')).toBe('two spaces');
    expect(cleanText(' edge ')).toBe('edge');
  });
});

describe('displayWidth', () => {
  it('counts ASCII as one column each', () => {
    expect(displayWidth('hello')).toBe(5);
    expect(displayWidth('')).toBe(0);
  });

  it('counts CJK and fullwidth characters as two columns', () => {
    expect(displayWidth('中文')).toBe(4);
    expect(displayWidth('테스트')).toBe(6);
    expect(displayWidth('テスト')).toBe(6);
    expect(displayWidth('Ａ')).toBe(2);
    // Halfwidth katakana stays narrow.
    expect(displayWidth('ｱ')).toBe(1);
  });

  it('counts emoji as two columns and combining marks as zero', () => {
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('a🚀b')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\u2764\ufe0f')).toBe(1);
    expect(charWidth(0x200b)).toBe(0);
  });
});

describe('fitWidth / padWidth', () => {
  it('leaves short text alone and cuts long text with an ellipsis', () => {
    expect(fitWidth('abc', 5)).toBe('abc');
    expect(fitWidth('abcdef', 4)).toBe('abc…');
    expect(fitWidth('abc', 0)).toBe('');
    expect(fitWidth('中文字', 4)).toBe('中…');
    // A wide character that would straddle the edge is dropped, not split.
    expect(fitWidth('a中文', 3)).toBe('a…');
    expect(fitWidth('中', 1)).toBe('…');
  });

  it('padWidth pads to the exact width', () => {
    expect(padWidth('ab', 4)).toBe('ab  ');
    expect(padWidth('ab', 4, 'right')).toBe('  ab');
    expect(displayWidth(padWidth('中文字', 5))).toBe(5);
  });

  const text = fc
    .array(fc.oneof(fc.constantFrom('a', 'Z', ' ', '中', '文', '한', '🚀', '😀', 'e\u0301', 'ｱ', 'Ａ', '\u200b', '…'), fc.string({ maxLength: 4 })), {
      maxLength: 40,
    })
    .map((parts) => parts.join(''));

  it('fitWidth keeps a zero-width string even at width 0 (found by the property below)', () => {
    expect(fitWidth('\u200b', 0)).toBe('\u200b');
    expect(fitWidth('x', 0)).toBe('');
  });

  it('fitWidth never exceeds the width (property)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 60 }), (s, w) => {
        const out = fitWidth(s, w);
        expect(displayWidth(out)).toBeLessThanOrEqual(w);
        if (displayWidth(s) <= w) expect(out).toBe(s);
        else expect(s.startsWith(out.slice(0, -1))).toBe(true);
      }),
    );
  });

  it('padWidth is always exactly the width (property)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 60 }), (s, w) => {
        expect(displayWidth(padWidth(s, w))).toBe(w);
      }),
    );
  });
});
