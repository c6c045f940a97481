// The private transport: `codex app-server` (stdio://) started for this one
// client, newline-delimited JSON both ways.

import { LineSplitter, type MessageChannel } from './rpc-client.js';
import { plainStderr, startCodex } from './child-process.js';

export function stdioChannel(bin: string, env: Record<string, string>): MessageChannel {
  const child = startCodex(bin, ['app-server'], env);
  let onMsg: (t: string) => void = () => undefined;
  let onClose: (why: string) => void = () => undefined;
  const splitter = new LineSplitter((l) => onMsg(l));
  child.proc.stdout.on('data', (c: Buffer) => splitter.push(c));
  void child.exited.then((why) => {
    const err = plainStderr(child.stderr());
    onClose(err ? `${why}: ${err}` : why);
  });
  return {
    send: (text) => {
      child.proc.stdin.write(text + '\n');
    },
    onMessage: (cb) => (onMsg = cb),
    onClose: (cb) => (onClose = cb),
    close: () => child.stop(),
  };
}
