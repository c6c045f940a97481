// A JSON-RPC client for `codex app-server`: one JSON message per line (stdio)
// or per WebSocket text frame (the control socket). Responses are matched by
// id and may arrive in any order; every request has a timeout; lines that are
// not JSON objects, notifications and answers to nobody are ignored. The
// server is outside data: nothing it sends can crash the client.

export interface MessageChannel {
  /** Sends one complete JSON text. */
  send(text: string): void;
  /** Registers the receiver of each complete JSON text. */
  onMessage(cb: (text: string) => void): void;
  /** Called once when the channel is gone (process exit, socket close). */
  onClose(cb: (why: string) => void): void;
  /** Ends the channel and whatever runs behind it. */
  close(): Promise<void>;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(message);
  }
}

export class RpcTimeout extends Error {
  constructor(
    readonly method: string,
    ms: number,
  ) {
    super(`Codex did not answer ${method} within ${Math.round(ms / 100) / 10} s.`);
  }
}

export class RpcClosed extends Error {}

export const DEFAULT_TIMEOUT_MS = 12_000;
/** Longest error message kept from the server. */
const MAX_ERROR_CHARS = 2000;

interface Pending {
  method: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class JsonRpcClient {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWhy: string | null = null;
  /** Count of ignored inbound texts (garbage, notifications, unknown ids). */
  ignored = 0;

  constructor(
    private readonly channel: MessageChannel,
    private readonly defaultTimeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    channel.onMessage((t) => this.receive(t));
    channel.onClose((why) => this.fail(why));
  }

  get closed(): boolean {
    return this.closedWhy !== null;
  }

  request<T = unknown>(method: string, params: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    if (this.closedWhy !== null) return Promise.reject(new RpcClosed(this.closedWhy));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcTimeout(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      const msg: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== undefined) msg.params = params;
      try {
        this.channel.send(JSON.stringify(msg));
      } catch (e) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new RpcClosed(`Could not write to Codex: ${(e as Error).message}`));
      }
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedWhy !== null) return;
    const msg: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) msg.params = params;
    try {
      this.channel.send(JSON.stringify(msg));
    } catch {
      // the close handler reports it
    }
  }

  async close(): Promise<void> {
    this.fail('closed by cleanerx');
    await this.channel.close();
  }

  private receive(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.ignored++;
      return;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
      this.ignored++;
      return;
    }
    const m = msg as Record<string, unknown>;
    if (typeof m.method === 'string') {
      // A request from the server (approvals and the like): cleanerx starts no
      // turns, so it answers that it handles none. Notifications are ignored.
      if (m.id !== undefined && m.id !== null && (typeof m.id === 'number' || typeof m.id === 'string')) {
        try {
          this.channel.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'cleanerx handles no server requests' } }));
        } catch {
          // closing
        }
      } else this.ignored++;
      return;
    }
    const id = typeof m.id === 'number' ? m.id : typeof m.id === 'string' && /^\d{1,15}$/.test(m.id) ? Number(m.id) : NaN;
    const p = this.pending.get(id);
    if (!p) {
      this.ignored++;
      return;
    }
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (m.error !== undefined && m.error !== null) {
      const e = (typeof m.error === 'object' ? m.error : {}) as Record<string, unknown>;
      const code = typeof e.code === 'number' ? e.code : -32603;
      const message = typeof e.message === 'string' ? e.message.slice(0, MAX_ERROR_CHARS) : 'error without a message';
      p.reject(new RpcError(code, message, p.method));
    } else p.resolve(m.result);
  }

  private fail(why: string): void {
    if (this.closedWhy !== null) return;
    this.closedWhy = why;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RpcClosed(`Codex closed the connection during ${p.method}: ${why}`));
      this.pending.delete(id);
    }
  }
}

/** Splits a byte stream into lines; a line longer than `maxLine` is dropped whole. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 64 * 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, nl));
      const dropped = this.dropping;
      const line = dropped ? '' : Buffer.concat(this.parts, this.size).toString('utf8');
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      if (!dropped && line.trim()) this.onLine(line);
      start = nl + 1;
    }
  }

  private append(b: Buffer): void {
    if (this.dropping || b.length === 0) return;
    if (this.size + b.length > this.maxLine) {
      this.dropping = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(b);
    this.size += b.length;
  }
}
