// Connecting to Codex's App Server. On Unix a live control socket (a running
// daemon, shared with the user's Codex) is preferred, through `codex
// app-server proxy`; a missing, stale or silent socket falls back to a
// private stdio server started for this store only. After `initialize` +
// `initialized`, mutation capabilities are probed with parameters that name
// nothing real. Every connection must be closed (it owns a child process).

import { lstatSync, statSync } from 'node:fs';
import type { HostContext } from '../../engine/core/adapter.js';
import type { Installation } from '../../engine/core/model.js';
import { codexBinary, codexEnv, controlSocket } from './paths.js';
import { proxyChannel } from './proxy-transport.js';
import { JsonRpcClient, RpcError, type MessageChannel } from './rpc-client.js';
import { stdioChannel } from './stdio-transport.js';

type Transport = 'proxy' | 'stdio';

interface Capabilities {
  threadDelete: boolean;
  memoryReset: boolean;
  loadedList: boolean;
  /** Why a capability is missing, for blocked reasons. */
  notes: string[];
}

export interface CodexConnection {
  client: JsonRpcClient;
  transport: Transport;
  caps: Capabilities;
  /** Warnings for the scan (e.g. the socket fallback). */
  warnings: string[];
  close(): Promise<void>;
}

export const SOCKET_FALLBACK_WARNING = 'Codex control socket did not respond; cleanerx safely connected through a temporary local App Server instead.';

export interface ConnectOptions {
  /** Handshake budget of the private server (a first start indexes every rollout). */
  initTimeoutMs?: number;
  socketTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Skip the control socket (tests, and after it failed once in this process). */
  noSocket?: boolean;
  /**
   * Only a running App Server (its control socket) is asked; none is started.
   * Codex prunes its log database and rewrites its state, queue and memory
   * databases whenever an App Server starts, so an inventory never starts one.
   */
  socketOnly?: boolean;
}

export const NOT_STARTED =
  'no Codex App Server is running, and cleanerx starts one only for a confirmed cleanup (Codex prunes its own logs and rewrites its databases when it starts)';

/** Homes whose control socket failed once: bypassed for the rest of the run. */
const bypassed = new Set<string>();

export function resetSocketBypass(): void {
  bypassed.clear();
}

const CLIENT_INFO = { name: 'cleanerx', title: 'CleanerX', version: '0.1.0' };

async function initialize(channel: MessageChannel, timeoutMs: number, requestTimeoutMs: number): Promise<JsonRpcClient> {
  const client = new JsonRpcClient(channel, requestTimeoutMs);
  try {
    await client.request('initialize', { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } }, timeoutMs);
    client.notify('initialized');
    return client;
  } catch (e) {
    await client.close();
    throw e;
  }
}

/** A unix socket (or a link to one) that exists; a dangling link is stale. */
function socketPresent(sock: string): boolean {
  try {
    lstatSync(sock);
  } catch {
    return false;
  }
  try {
    return statSync(sock).isSocket();
  } catch {
    return false;
  }
}

export async function connectCodex(inst: Installation, ctx: HostContext, opts: ConnectOptions = {}): Promise<CodexConnection> {
  if (!inst.executable) throw new Error('the codex executable was not found');
  const bin = codexBinary(inst.executable);
  const env = codexEnv(inst, ctx);
  const warnings: string[] = [];
  const requestTimeoutMs = opts.requestTimeoutMs ?? 12_000;
  let client: JsonRpcClient | null = null;
  let transport: Transport = 'stdio';
  const sock = controlSocket(inst.home);
  if (ctx.platform !== 'win32' && !opts.noSocket && !bypassed.has(inst.home) && socketPresent(sock)) {
    try {
      const channel = await proxyChannel(bin, env, sock, opts.socketTimeoutMs ?? 3000);
      client = await initialize(channel, opts.socketTimeoutMs ?? 3000, requestTimeoutMs);
      transport = 'proxy';
    } catch {
      bypassed.add(inst.home);
      warnings.push(SOCKET_FALLBACK_WARNING);
    }
  }
  if (!client && opts.socketOnly) throw Object.assign(new Error(NOT_STARTED), { notStarted: true });
  if (!client) {
    client = await initialize(stdioChannel(bin, env), opts.initTimeoutMs ?? 120_000, requestTimeoutMs);
    transport = 'stdio';
  }
  let caps: Capabilities;
  try {
    caps = await probeCapabilities(client);
  } catch (e) {
    await client.close();
    throw e;
  }
  const c = client;
  return { client: c, transport, caps, warnings, close: () => c.close() };
}

function isMissingMethod(e: unknown): boolean {
  if (!(e instanceof RpcError)) return false;
  return e.code === -32601 || /unknown variant|method not found|requires experimentalApi/i.test(e.message);
}

/**
 * Each mutation probed on its own, with parameters that identify nothing:
 * `thread/delete {}` must fail on the missing threadId, and memory/reset
 * gets a string, which neither a unit nor any parameter struct accepts, so
 * parsing fails before anything runs. memory/reset is never probed with
 * absent, null or `{}` parameters: those run it.
 */
/** The one parameter value memory/reset is ever probed with. */
export const MEMORY_RESET_PROBE = 'cleanerx-capability-probe';

export async function probeCapabilities(client: JsonRpcClient): Promise<Capabilities> {
  const caps: Capabilities = { threadDelete: false, memoryReset: false, loadedList: false, notes: [] };
  const probe = async (method: string, params: unknown, expect: RegExp): Promise<boolean> => {
    try {
      await client.request(method, params, 4000);
      caps.notes.push(`Codex accepted a probe of ${method} that should have failed; cleanerx does not use it.`);
      return false;
    } catch (e) {
      if (e instanceof RpcError && !isMissingMethod(e) && expect.test(e.message)) return true;
      caps.notes.push(isMissingMethod(e) ? `This Codex has no ${method}.` : `The probe of ${method} failed: ${(e as Error).message.slice(0, 200)}`);
      return false;
    }
  };
  const [del, mem] = await Promise.all([
    probe('thread/delete', {}, /missing field `?threadId/i),
    probe('memory/reset', MEMORY_RESET_PROBE, /invalid type: string/i),
  ]);
  caps.threadDelete = del;
  caps.memoryReset = mem;
  try {
    await client.request('thread/loaded/list', { limit: 1 }, 4000);
    caps.loadedList = true;
  } catch (e) {
    caps.notes.push(`thread/loaded/list is unavailable: ${(e as Error).message.slice(0, 200)}`);
  }
  return caps;
}
