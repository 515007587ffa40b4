import { compare, hash } from 'bcryptjs';
import type { Config } from '../../lib-ts/config.ts';
import {
  createRecord,
  deleteRecord,
  readRecord,
  type RecordAnswer,
  type Records,
  updateRecord,
} from '../../lib-ts/record.ts';
import { longOperation } from '../../lib-ts/sort.ts';
import { isJsonObject, MAX_SORT_N, passwordOf, sortSizeOf } from '../../lib-ts/validate.ts';
import { HttpError, ok, readJson, text } from './http.ts';
import { type Route, router } from './router.ts';

export type AppConfig = Pick<
  Config,
  'bcryptCost' | 'longPollMs' | 'helloDelayMs' | 'helloDelayEvery' | 'sortN'
>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function recordResponse(answer: RecordAnswer): Response {
  return 'record' in answer
    ? Response.json(answer.record, { status: answer.status })
    : text(answer.status, answer.message);
}

function password(value: unknown): string {
  const password = passwordOf(value);
  if (password === undefined) {
    throw new HttpError(400, 'body must be {"password": a string of at most 72 UTF-8 bytes}');
  }
  return password;
}

/**
 * The whole server as one fetch handler. Every request runs on this one event loop, so plain
 * Maps and a plain counter are the store and the /hello count of the whole server. `records` is
 * the record table, undefined without ARENA_DB_URL.
 */
export function createHandler(
  config: AppConfig,
  helloHtml: Uint8Array<ArrayBuffer>,
  records: Records | undefined,
): (req: Request) => Promise<Response> {
  const passwords = new Map<string, string>();
  const users = new Map<string, string>();
  let hellos = 0;

  const exact = new Map<string, Route<URL>>([
    ['/', { GET: ok }],
    ['/hello', {
      async GET() {
        if (++hellos % config.helloDelayEvery === 0) await sleep(config.helloDelayMs);
        return new Response(helloHtml, {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        });
      },
    }],
    ['/longPoll', {
      async GET() {
        await sleep(config.longPollMs);
        return ok();
      },
    }],
    ['/long-operation', {
      GET(_req, url) {
        const n = sortSizeOf(url.searchParams.getAll('n'), config.sortN);
        if (n === undefined) {
          throw new HttpError(400, `n must be decimal digits in 1..${MAX_SORT_N}`);
        }
        // Sorted right here, blocking the event loop, as the honours report's server did.
        return Response.json({ message: 'done', n, checksum: longOperation(n) });
      },
    }],
    ['/record', {
      async GET(_req, url) {
        return recordResponse(await readRecord(records, url.searchParams.getAll('name')));
      },
      async PUT(req) {
        return recordResponse(await createRecord(records, (await readJson(req)).value));
      },
      async POST(req) {
        return recordResponse(await updateRecord(records, (await readJson(req)).value));
      },
      async DELETE(_req, url) {
        return recordResponse(await deleteRecord(records, url.searchParams.getAll('name')));
      },
    }],
  ]);

  const withUsername = new Map<string, Route<string>>([
    ['/password/set/', {
      async POST(req, username) {
        const { value } = await readJson(req);
        passwords.set(username, await hash(password(value), config.bcryptCost));
        return ok();
      },
    }],
    ['/password/verify/', {
      async POST(req, username) {
        const given = password((await readJson(req)).value);
        const stored = passwords.get(username);
        if (stored === undefined) {
          // Hash anyway so an unknown user costs as much time as a known one.
          await hash(given, config.bcryptCost);
          throw new HttpError(404, 'unknown user');
        }
        if (!(await compare(given, stored))) throw new HttpError(403, 'wrong password');
        return ok();
      },
    }],
    ['/user/set/', {
      async POST(req, username) {
        const { json, value } = await readJson(req);
        if (!isJsonObject(value)) throw new HttpError(400, 'body must be a JSON object');
        // Kept as the client's JSON text: sent back as it came, never re-encoded.
        users.set(username, json);
        return ok();
      },
    }],
    ['/user/get/', {
      GET(_req, username) {
        const json = users.get(username);
        if (json === undefined) throw new HttpError(404, 'unknown user');
        return new Response(json, { headers: { 'content-type': 'application/json' } });
      },
    }],
  ]);

  return router({ exact, withUsername });
}
