import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { compare, hash } from 'bcryptjs';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Config } from '../../lib-ts/config.ts';
import {
  type RecordAnswer,
  type Records,
  createRecord,
  deleteRecord,
  readRecord,
  updateRecord,
} from '../../lib-ts/record.ts';
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

/** An error whose message is safe to show the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const passwordKey = (username: string) => `password:${username}`;
const userKey = (username: string) => `user:${username}`;

function sendText(res: Response, status: number, message: string): void {
  res.status(status).type('text/plain').send(message);
}

function ok(_req: Request, res: Response): void {
  sendText(res, 200, 'OK');
}

function methodNotAllowed(allow: string) {
  return (_req: Request, res: Response) => {
    res.set('Allow', allow);
    sendText(res, 405, 'method not allowed');
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Replaces the raw body with its parsed JSON value. */
function parseJson(req: Request, _res: Response, next: NextFunction): void {
  try {
    // No body at all leaves req.body undefined: as invalid as an empty one.
    if (!Buffer.isBuffer(req.body)) throw new Error('no body');
    req.body = JSON.parse(utf8.decode(req.body));
  } catch {
    return next(new HttpError(400, 'body is not valid JSON'));
  }
  next();
}

// Raw bytes rather than express.json(): clients' Content-Type is not trusted, and
// body-parser's JSON parser turns an empty body into {} instead of refusing it.
const jsonBody = [express.raw({ type: () => true, limit: BODY_LIMIT }), parseJson];

/** Every value of `key` in the query, parsed as deno and bun parse it. */
function queryValues(req: Request, key: string): string[] {
  return new URL(req.originalUrl, 'http://localhost').searchParams.getAll(key);
}

function sendRecord(res: Response, answer: RecordAnswer): void {
  if ('record' in answer) res.status(answer.status).json(answer.record);
  else sendText(res, answer.status, answer.message);
}

function password(req: Request): string {
  const password = passwordOf(req.body);
  if (password === undefined) {
    throw new HttpError(400, 'body must be {"password": a string of at most 72 UTF-8 bytes}');
  }
  return password;
}

/** The 4xx/5xx status an error carries (HttpError, body-parser, the router), else 500. */
function statusOf(err: unknown): number {
  const { status, statusCode } = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const code = status ?? statusCode;
  return typeof code === 'number' && code >= 400 && code <= 599 ? code : 500;
}

// Replaces Express's HTML error page: a short text, never a stack trace.
function errorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  const status = statusOf(err);
  if (status >= 500) console.error(err);
  const message = err instanceof HttpError ? err.message : (STATUS_CODES[status] ?? 'Error');
  sendText(res, status, message);
}

export function createApp({ config, helloHtml, store, records, nextHello }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Only the contract's exact paths exist: no /HELLO, no /hello/.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  // Node's parser reads any version it can parse (`GET / HTTP/2.0` on a plain connection, even
  // HTTP/0.9) and Express would answer it as HTTP/1.1: a version this server does not speak is a
  // 505 (RFC 9110, 15.6.6).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.httpVersionMajor === 1) next();
    else sendText(res, 505, 'HTTP version not supported');
  });

  app.param('username', (_req: Request, _res: Response, next: NextFunction, name: string) => {
    next(isValidUsername(name) ? undefined : new HttpError(400, 'invalid username'));
  });

  app.route('/').get(ok).all(methodNotAllowed('GET, HEAD'));

  app
    .route('/hello')
    .get(async (_req, res) => {
      const count = await nextHello();
      if (count % config.helloDelayEvery === 0) await sleep(config.helloDelayMs);
      res.type('html').send(helloHtml);
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/password/set/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      const hashed = await hash(password(req), config.bcryptCost);
      await store.set(passwordKey(req.params.username), hashed);
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/password/verify/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      const given = password(req);
      const stored = await store.get(passwordKey(req.params.username));
      if (stored === undefined) {
        // Hash anyway so an unknown user costs as much time as a known one.
        await hash(given, config.bcryptCost);
        throw new HttpError(404, 'unknown user');
      }
      if (!(await compare(given, stored))) throw new HttpError(403, 'wrong password');
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/user/set/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      if (!isJsonObject(req.body)) throw new HttpError(400, 'body must be a JSON object');
      // Kept as JSON text: it crosses IPC as one string and is sent back without re-encoding.
      await store.set(userKey(req.params.username), JSON.stringify(req.body));
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/user/get/:username')
    .get(async (req: Request<{ username: string }>, res: Response) => {
      const json = await store.get(userKey(req.params.username));
      if (json === undefined) throw new HttpError(404, 'unknown user');
      res.type('application/json').send(json);
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/longPoll')
    .get(async (req, res) => {
      await sleep(config.longPollMs);
      ok(req, res);
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/long-operation')
    .get((req, res) => {
      // A repeated n is refused.
      const n = sortSizeOf(queryValues(req, 'n'), config.sortN);
      if (n === undefined) throw new HttpError(400, `n must be decimal digits in 1..${MAX_SORT_N}`);
      // Sorted right here, blocking this process's event loop, as the honours report's server did.
      res.json({ message: 'done', n, checksum: longOperation(n) });
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/record')
    .get(async (req, res) => sendRecord(res, await readRecord(records, queryValues(req, 'name'))))
    .put(jsonBody, async (req: Request, res: Response) => sendRecord(res, await createRecord(records, req.body)))
    .post(jsonBody, async (req: Request, res: Response) => sendRecord(res, await updateRecord(records, req.body)))
    .delete(async (req, res) => sendRecord(res, await deleteRecord(records, queryValues(req, 'name'))))
    .all(methodNotAllowed('GET, HEAD, PUT, POST, DELETE'));

  app.use((_req, res) => sendText(res, 404, 'not found'));
  app.use(errorHandler);
  return app;
}
