// The clipboard over SSH: OSC 52 (`ESC ] 52 ; c ; <base64> BEL`) asks the
// terminal the user sits at to set its clipboard, wherever the app runs.
// A multiplexer in between takes it on the app's behalf:
// - tmux with `set -g set-clipboard on` reads the plain sequence itself: it
//   fills a tmux buffer and passes the clipboard on to its own terminal (tmux
//   3.x; with the default `external` it ignores the application's request).
//   The same text wrapped in tmux's DCS passthrough (`ESC P tmux; …`, every
//   ESC doubled) reaches the outer terminal directly when the user has
//   `allow-passthrough on` instead; without it tmux drops the wrapper. Both
//   go out, so either setting works.
// - GNU screen passes a DCS string through to its terminal, in pieces of at
//   most 768 bytes: the sequence is cut into DCS chunks of 76 characters.
// The text travels as base64, so nothing of it can reach the terminal as a
// control; what no clipboard takes, the app shows on screen.

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;
/** The base64 length past which terminals drop the request (xterm, hterm and others cap near 100 KB). */
export const OSC52_MAX_BASE64 = 99_000;
/** GNU screen's DCS buffer is 768 bytes; 76 base64 characters a piece stay far inside it. */
const SCREEN_CHUNK = 76;

/** Who carries the request to the user's terminal. */
export type ClipboardRoute = 'tmux' | 'screen' | 'terminal';

export function clipboardRoute(env: Readonly<Record<string, string | undefined>>): ClipboardRoute {
  if (env.TMUX) return 'tmux';
  if (env.STY) return 'screen';
  return 'terminal';
}

/** The bytes that ask for `text` on the clipboard by this route; null when the text is over the cap. */
export function osc52Sequence(text: string, route: ClipboardRoute): string | null {
  const b64 = Buffer.from(text, 'utf8').toString('base64');
  if (b64.length > OSC52_MAX_BASE64) return null;
  const osc = `${ESC}]52;c;${b64}${BEL}`;
  if (route === 'tmux') return `${osc}${ESC}Ptmux;${osc.replaceAll(ESC, ESC + ESC)}${ST}`;
  if (route === 'screen') {
    const pieces: string[] = [];
    for (let i = 0; i < b64.length; i += SCREEN_CHUNK) pieces.push(b64.slice(i, i + SCREEN_CHUNK));
    // An empty text still sends one empty request (it clears the clipboard, as the plain form does).
    return `${ESC}P${ESC}]52;c;${pieces.join(`${ST}${ESC}P`)}${BEL}${ST}`;
  }
  return osc;
}
