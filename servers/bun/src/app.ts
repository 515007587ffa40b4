import type { BunRequest, Server } from 'bun';
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
import { HttpError, methods, readJson, text } from './http.ts';
import { hashPassword, verifyPassword } from './password.ts';

export type AppConfig = Pick<
  Config,
  'host' | 'port' | 'bcryptCost' | 'longPollMs' | 'helloDelayMs' | 'helloDelayEvery' | 'sortN'
>;

function username(req: BunRequest): string {
  // Bun has already percent-decoded the parameter (invalid UTF-8 becomes U+FFFD, refused here).
  const name = req.params.username;
  if (!isValidUsername(name)) throw new HttpError(400, 'invalid username');
  return name;
}

async function password(req: Request): Promise<string> {
  const password = passwordOf((await readJson(req)).value);
  if (password === undefined) {
    throw new HttpError(400, 'body must be {"password": a string of at most 72 UTF-8 bytes}');
  }
  return password;
}

function recordResponse(answer: RecordAnswer): Response {
  if ('record' in answer) return Response.json(answer.record, { status: answer.status });
  return text(answer.status, answer.message);
}

/** Every (percent-decoded) value of `name` in the query. */
const names = (req: Request) => new URL(req.url).searchParams.getAll('name');

/**
 * Lifts Bun's 10 s idle timeout (kept against silent clients) from a request that waits on
 * purpose: a long-poll, a delayed /hello, bcrypt at a high cost.
 */
function noIdleTimeout(req: Request, server: Server<undefined>): void {
  server.timeout(req, 0);
}

/**
 * Starts the HTTP server; everything lives in this one process and its single JS thread.
 * `records` is the record table, undefined without ARENA_DB_URL.
 */
export function serve(config: AppConfig, helloHtml: Uint8Array, records: Records | undefined): Server<undefined> {
  const passwords = new Map<string, string>();
  const users = new Map<string, string>();
  let hellos = 0;

  return Bun.serve({
    hostname: config.host,
    port: config.port,
    // One process holds the store: a second server on the same port must fail, not share it
    // (Bun turns SO_REUSEPORT on by default when development is false).
    reusePort: false,
    // The 64 KiB limit is readBody's, whose 413 carries a message; Bun's own has an empty body.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Never Bun's HTML error pages with stack traces, whatever NODE_ENV says.
    development: false,
    routes: {
      '/': methods({ GET: () => text(200, 'OK') }),

      '/hello': methods({
        GET: async (req, server) => {
          if (++hellos % config.helloDelayEvery === 0) {
            noIdleTimeout(req, server);
            await Bun.sleep(config.helloDelayMs);
          }
          return new Response(helloHtml, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
        },
      }),

      '/password/set/:username': methods({
        POST: async (req, server) => {
          const name = username(req);
          const given = await password(req);
          noIdleTimeout(req, server);
          passwords.set(name, await hashPassword(given, config.bcryptCost));
          return text(200, 'OK');
        },
      }),

      '/password/verify/:username': methods({
        POST: async (req, server) => {
          const name = username(req);
          const given = await password(req);
          noIdleTimeout(req, server);
          const stored = passwords.get(name);
          if (stored === undefined) {
            // Hash anyway so an unknown user costs as much time as a known one.
            await hashPassword(given, config.bcryptCost);
            throw new HttpError(404, 'unknown user');
          }
          if (!(await verifyPassword(given, stored))) throw new HttpError(403, 'wrong password');
          return text(200, 'OK');
        },
      }),

      '/user/set/:username': methods({
        POST: async (req) => {
          const name = username(req);
          const { value, raw } = await readJson(req);
          if (!isJsonObject(value)) throw new HttpError(400, 'body must be a JSON object');
          // Kept as the client's text: sent back as it came, with no precision lost re-encoding it.
          users.set(name, raw);
          return text(200, 'OK');
        },
      }),

      '/user/get/:username': methods({
        GET: (req) => {
          const json = users.get(username(req));
          if (json === undefined) throw new HttpError(404, 'unknown user');
          return new Response(json, { headers: { 'Content-Type': 'application/json' } });
        },
      }),

      '/longPoll': methods({
        GET: async (req, server) => {
          noIdleTimeout(req, server);
          await Bun.sleep(config.longPollMs);
          return text(200, 'OK');
        },
      }),

      '/long-operation': methods({
        GET: (req) => {
          const n = sortSizeOf(new URL(req.url).searchParams.getAll('n'), config.sortN);
          if (n === undefined) throw new HttpError(400, `n must be decimal digits in 1..${MAX_SORT_N}`);
          // Sorted right here, blocking the only JS thread, as the honours report's server did.
          return Response.json({ message: 'done', n, checksum: longOperation(n) });
        },
      }),

      '/record': methods({
        GET: async (req) => recordResponse(await readRecord(records, names(req))),
        PUT: async (req) => recordResponse(await createRecord(records, (await readJson(req)).value)),
        POST: async (req) => recordResponse(await updateRecord(records, (await readJson(req)).value)),
        DELETE: async (req) => recordResponse(await deleteRecord(records, names(req))),
      }),
    },

    // Any path the routes do not know, including an empty or multi-segment username.
    fetch: () => text(404, 'not found'),

    error(err) {
      if (err instanceof HttpError) return text(err.status, err.message, err.headers);
      console.error(err);
      return text(500, 'internal error');
    },
  });
}
