// The least WebSocket (RFC 6455) a client needs to talk to Codex's control
// socket through `codex app-server proxy`, which relays raw bytes: the
// HTTP/1.1 upgrade, masked text frames out, and text/continuation/ping/close
// frames in. One JSON-RPC message per text message.

import { createHash, randomBytes } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_MESSAGE = 64 * 1024 * 1024;
const MAX_HEADER = 16 * 1024;

export function handshakeRequest(key: string): string {
  return [
    'GET / HTTP/1.1',
    'Host: localhost',
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${key}`,
    'Sec-WebSocket-Version: 13',
    '',
    '',
  ].join('\r\n');
}

export function newKey(): string {
  return randomBytes(16).toString('base64');
}

export function acceptFor(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

/** A masked client frame (opcode 1 text, 8 close, 10 pong). */
export function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? 2 : len < 65536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + 4 + len);
  out[0] = 0x80 | opcode;
  if (len < 126) out[1] = 0x80 | len;
  else if (len < 65536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(len, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(Math.floor(len / 2 ** 32), 2);
    out.writeUInt32BE(len >>> 0, 6);
  }
  const mask = randomBytes(4);
  mask.copy(out, head);
  for (let i = 0; i < len; i++) out[head + 4 + i] = payload[i]! ^ mask[i & 3]!;
  return out;
}

export type WsEvent = { kind: 'open' } | { kind: 'text'; text: string } | { kind: 'ping'; payload: Buffer } | { kind: 'close'; why: string };

/**
 * Incremental reader of the server side: first the HTTP response (must be
 * 101 with the right accept), then frames. Protocol errors end the stream
 * with a close event.
 */
export class WsReader {
  private buf: Buffer = Buffer.alloc(0);
  private open = false;
  private ended = false;
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;

  constructor(
    private readonly key: string,
    private readonly emit: (e: WsEvent) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.ended) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (!this.open && !this.readHeader()) return;
    while (!this.ended && this.readFrame());
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.buf = Buffer.alloc(0);
    this.emit({ kind: 'close', why });
  }

  private readHeader(): boolean {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.buf.length > MAX_HEADER) this.end('the control socket sent an oversized HTTP header');
      return false;
    }
    const head = this.buf.subarray(0, end).toString('latin1');
    this.buf = this.buf.subarray(end + 4);
    const lines = head.split('\r\n');
    if (!/^HTTP\/1\.1 101\b/.test(lines[0] ?? '')) {
      this.end(`the control socket refused the WebSocket upgrade (${(lines[0] ?? '').slice(0, 80)})`);
      return false;
    }
    const accept = lines
      .find((l) => /^sec-websocket-accept:/i.test(l))
      ?.split(':')[1]
      ?.trim();
    if (accept !== acceptFor(this.key)) {
      this.end('the control socket answered with a wrong WebSocket accept key');
      return false;
    }
    this.open = true;
    this.emit({ kind: 'open' });
    return true;
  }

  private readFrame(): boolean {
    const b = this.buf;
    if (b.length < 2) return false;
    const fin = (b[0]! & 0x80) !== 0;
    const opcode = b[0]! & 0x0f;
    const masked = (b[1]! & 0x80) !== 0;
    let len = b[1]! & 0x7f;
    let off = 2;
    if (len === 126) {
      if (b.length < 4) return false;
      len = b.readUInt16BE(2);
      off = 4;
    } else if (len === 127) {
      if (b.length < 10) return false;
      const hi = b.readUInt32BE(2);
      if (hi > 0) {
        this.end('the control socket sent a frame larger than cleanerx accepts');
        return false;
      }
      len = b.readUInt32BE(6);
      off = 10;
    }
    if (len > MAX_MESSAGE) {
      this.end('the control socket sent a frame larger than cleanerx accepts');
      return false;
    }
    const maskLen = masked ? 4 : 0;
    if (b.length < off + maskLen + len) return false;
    let payload = b.subarray(off + maskLen, off + maskLen + len);
    if (masked) {
      const mask = b.subarray(off, off + 4);
      payload = Buffer.from(payload);
      for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i & 3]!;
    }
    this.buf = b.subarray(off + maskLen + len);
    switch (opcode) {
      case 0x0:
      case 0x1:
      case 0x2:
        if (opcode !== 0 && this.fragments.length) {
          this.end('the control socket interleaved WebSocket messages');
          return false;
        }
        this.fragmentBytes += payload.length;
        if (this.fragmentBytes > MAX_MESSAGE) {
          this.end('the control socket sent a message larger than cleanerx accepts');
          return false;
        }
        this.fragments.push(Buffer.from(payload));
        if (fin) {
          const text = Buffer.concat(this.fragments).toString('utf8');
          this.fragments = [];
          this.fragmentBytes = 0;
          this.emit({ kind: 'text', text });
        }
        return true;
      case 0x8:
        this.end('the control socket closed the WebSocket');
        return false;
      case 0x9:
        this.emit({ kind: 'ping', payload: Buffer.from(payload) });
        return true;
      case 0xa:
        return true;
      default:
        this.end(`the control socket sent an unknown WebSocket opcode ${opcode}`);
        return false;
    }
  }
}
