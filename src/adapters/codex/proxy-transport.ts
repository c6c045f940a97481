// The shared transport: a running app-server daemon's control socket,
// reached through the official `codex app-server proxy --sock <path>` (a raw
// byte relay). The socket speaks WebSocket, so the client does the upgrade
// and frames each JSON-RPC message; the channel opens only after the 101.

import { makeProbeHome, removeProbeHome } from '../../engine/host/probe-home.js';
import { plainStderr, startCodex } from './child-process.js';
import type { MessageChannel } from './rpc-client.js';
import { encodeFrame, handshakeRequest, newKey, WsReader } from './websocket.js';

export function proxyChannel(bin: string, env: Record<string, string>, sock: string, openTimeoutMs: number): Promise<MessageChannel> {
  // The relay is told its socket and reads nothing of the home; as any codex start it makes helper links in
  // $CODEX_HOME/tmp/arg0-linux (0.171): given a private one, a read-only scan leaves the user's home as it was.
  const relayHome = makeProbeHome(env);
  const child = startCodex(bin, ['app-server', 'proxy', '--sock', sock], relayHome ? { ...env, CODEX_HOME: relayHome } : env);
  if (relayHome) void child.exited.then(() => removeProbeHome(relayHome));
  const key = newKey();
  let onMsg: (t: string) => void = () => undefined;
  let onClose: (why: string) => void = () => undefined;
  let closed = false;
  const close = (why: string): void => {
    if (closed) return;
    closed = true;
    onClose(why);
    void child.stop(200);
  };
  return new Promise((resolve, reject) => {
    let opened = false;
    const timer = setTimeout(() => {
      if (opened) return;
      void child.stop(0);
      reject(new Error(`the control socket did not answer within ${openTimeoutMs} ms`));
    }, openTimeoutMs);
    const channel: MessageChannel = {
      send: (text) => {
        child.proc.stdin.write(encodeFrame(0x1, Buffer.from(text, 'utf8')));
      },
      onMessage: (cb) => (onMsg = cb),
      onClose: (cb) => (onClose = cb),
      close: async () => {
        if (!closed) {
          closed = true;
          try {
            child.proc.stdin.write(encodeFrame(0x8, Buffer.from([0x03, 0xe8])));
          } catch {
            // gone
          }
        }
        await child.stop(300);
      },
    };
    const reader = new WsReader(key, (e) => {
      if (e.kind === 'open') {
        opened = true;
        clearTimeout(timer);
        resolve(channel);
      } else if (e.kind === 'text') onMsg(e.text);
      else if (e.kind === 'ping') {
        try {
          child.proc.stdin.write(encodeFrame(0xa, e.payload));
        } catch {
          // gone
        }
      } else if (e.kind === 'close') {
        if (!opened) {
          clearTimeout(timer);
          void child.stop(0);
          reject(new Error(e.why));
        } else close(e.why);
      }
    });
    child.proc.stdout.on('data', (c: Buffer) => reader.push(c));
    void child.exited.then((why) => {
      const err = plainStderr(child.stderr());
      if (!opened) {
        clearTimeout(timer);
        reject(new Error(err || `codex app-server proxy ended (${why})`));
      } else close(err ? `${why}: ${err}` : why);
    });
    child.proc.stdin.write(handshakeRequest(key));
  });
}
