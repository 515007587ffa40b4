// What the contract's endpoints do, apart from HTTP: shared by the two HTTP layers of this folder,
// the Express app (express-app.ts) and the bare node:http listener (http-app.ts), so that the two
// setups differ in their HTTP layer only. /record's rules live in lib-ts (record.ts), already
// framework-neutral.
import { STATUS_CODES, type IncomingMessage, type RequestListener } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { compare, hash } from 'bcryptjs';
import type { Config } from '../../lib-ts/config.ts';
import type { Records } from '../../lib-ts/record.ts';
import { longOperation } from '../../lib-ts/sort.ts';
import { MAX_SORT_N, isJsonObject, isValidUsername, passwordOf, sortSizeOf } from '../../lib-ts/validate.ts';
import type { Store } from './store.ts';

export const BODY_LIMIT = 65536;

export interface AppDeps {
  config: Pick<Config, 'bcryptCost' | 'longPollMs' | 'helloDelayMs' | 'helloDelayEvery' | 'sortN'>;
  helloHtml: Buffer;
  store: Store;
  /** The record table; undefined without ARENA_DB_URL. */
  records: Records | undefined;
  /** Counts a /hello over the whole server (all workers) and returns its number, from 1. */
  nextHello: () => Promise<number>;
}

/** An HTTP layer: the whole contract as one request listener for node:http's server. */
export type App = (deps: AppDeps) => RequestListener;

/** An error whose message is safe to show the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Node's parser reads any version it can parse (`GET / HTTP/2.0` on a plain connection, even
 * HTTP/0.9), and Node would answer it as HTTP/1.1: a version this server does not speak is a 505
 * (RFC 9110, 15.6.6).
 */
export function checkVersion(req: IncomingMessage): void {
  if (req.httpVersionMajor !== 1) throw new HttpError(505, 'HTTP version not supported');
}

/** 400 unless the (already percent-decoded) `{username}` of a path is a valid one. */
export function checkUsername(name: string): void {
  if (!isValidUsername(name)) throw new HttpError(400, 'invalid username');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON value of a body's raw bytes, whatever its Content-Type (clients' is not trusted); 400
 * when they are not UTF-8 or not JSON. No body at all (not a Buffer) is as invalid as an empty one.
 */
export function parseJson(body: unknown): unknown {
  try {
    if (!Buffer.isBuffer(body)) throw new Error('no body');
    return JSON.parse(utf8.decode(body));
  } catch {
    throw new HttpError(400, 'body is not valid JSON');
  }
}

/** The 4xx/5xx status an error carries (HttpError, body-parser, the router), else 500. */
function statusOf(err: unknown): number {
  const { status, statusCode } = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const code = status ?? statusCode;
  return typeof code === 'number' && code >= 400 && code <= 599 ? code : 500;
}

/**
 * The status and short text that answer an error: an HttpError's own message, else the status'
 * standard reason — never a stack trace, which goes to stderr when the server is at fault.
 */
export function errorAnswer(err: unknown): { status: number; message: string } {
  if (err instanceof HttpError) return { status: err.status, message: err.message };
  const status = statusOf(err);
  if (status >= 500) console.error(err);
  return { status, message: STATUS_CODES[status] ?? 'Error' };
}

function password(body: unknown): string {
  const password = passwordOf(body);
  if (password === undefined) {
    throw new HttpError(400, 'body must be {"password": a string of at most 72 UTF-8 bytes}');
  }
  return password;
}

const passwordKey = (username: string) => `password:${username}`;
const userKey = (username: string) => `user:${username}`;

/**
 * The endpoints of the store, /hello, /longPoll and /long-operation, each given the request's
 * checked username and parsed body or query values; a refusal is thrown as an HttpError.
 */
export function endpoints({ config, helloHtml, store, nextHello }: AppDeps) {
  return {
    /** GET /hello: the page, after a wait when this is the K-th /hello of the whole server. */
    async hello(): Promise<Buffer> {
      const count = await nextHello();
      if (count % config.helloDelayEvery === 0) await sleep(config.helloDelayMs);
      return helloHtml;
    },

    /** POST /password/set/{username}. */
    async setPassword(username: string, body: unknown): Promise<void> {
      await store.set(passwordKey(username), await hash(password(body), config.bcryptCost));
    },

    /** POST /password/verify/{username}: 404 for an unknown user, 403 for a wrong password. */
    async verifyPassword(username: string, body: unknown): Promise<void> {
      const given = password(body);
      const stored = await store.get(passwordKey(username));
      if (stored === undefined) {
        // Hash anyway so an unknown user costs as much time as a known one.
        await hash(given, config.bcryptCost);
        throw new HttpError(404, 'unknown user');
      }
      if (!(await compare(given, stored))) throw new HttpError(403, 'wrong password');
    },

    /** POST /user/set/{username}. */
    async setUser(username: string, body: unknown): Promise<void> {
      if (!isJsonObject(body)) throw new HttpError(400, 'body must be a JSON object');
      // Kept as JSON text: it crosses IPC as one string and is sent back without re-encoding.
      await store.set(userKey(username), JSON.stringify(body));
    },

    /** GET /user/get/{username}: the user's object as JSON text. */
    async getUser(username: string): Promise<string> {
      const json = await store.get(userKey(username));
      if (json === undefined) throw new HttpError(404, 'unknown user');
      return json;
    },

    /** GET /longPoll: a timer, which holds nothing while it waits. */
    longPoll: (): Promise<void> => sleep(config.longPollMs),

    /** GET /long-operation from every value of `n` in the query (a repeated n is refused). */
    longOperation(values: readonly string[]): { message: 'done'; n: number; checksum: number } {
      const n = sortSizeOf(values, config.sortN);
      if (n === undefined) throw new HttpError(400, `n must be decimal digits in 1..${MAX_SORT_N}`);
      // Sorted right here, blocking this process's event loop, as the honours report's server did.
      return { message: 'done', n, checksum: longOperation(n) };
    },
  };
}
