// The contract on node:http alone, no framework: a request listener for `createServer`, as the
// blog's servers were (http-single, http-cluster). It routes with two small tables on the path
// and the method, reads a body up to the limit and answers with writeHead and end. What each
// endpoint does is endpoints.ts', shared with the Express app.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  type RecordAnswer,
  createRecord,
  deleteRecord,
  readRecord,
  updateRecord,
} from '../../lib-ts/record.ts';
import {
  type AppDeps,
  BODY_LIMIT,
  HttpError,
  checkUsername,
  checkVersion,
  endpoints,
  errorAnswer,
  parseJson,
} from './endpoints.ts';

// The types Express gives the same answers, so that both setups answer alike.
const TEXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

interface Answer {
  status: number;
  type: string;
  body: string | Buffer;
  /** The Allow header of a 405. */
  allow?: string;
}

const text = (status: number, body: string): Answer => ({ status, type: TEXT, body });
const ok = (): Answer => text(200, 'OK');
const json = (status: number, value: unknown): Answer => ({
  status,
  type: JSON_TYPE,
  body: JSON.stringify(value),
});

function recordAnswer(answer: RecordAnswer): Answer {
  return 'record' in answer ? json(answer.status, answer.record) : text(answer.status, answer.message);
}

/**
 * The whole body, once it has all come. Past BODY_LIMIT the rest is still read, and dropped, as
 * body-parser does for Express: the connection then serves its next request. Nothing is kept of
 * it, so an endless body costs no memory.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > BODY_LIMIT) reject(new HttpError(413, `body over ${BODY_LIMIT} bytes`));
      else resolve(Buffer.concat(chunks));
    });
    // The client went away mid-body: its fault, and nobody is left to read the answer.
    req.on('error', () => reject(new HttpError(400, 'request aborted')));
  });
}

const readJson = async (req: IncomingMessage): Promise<unknown> => parseJson(await readBody(req));

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** A path's handlers by method (HEAD is served by GET, whose body node:http leaves out). */
type Route<Arg> = { [method in Method]?: (req: IncomingMessage, arg: Arg) => Answer | Promise<Answer> };

/** The route's handler of the request's method, else the 405 that names those it has. */
function dispatch<Arg>(route: Route<Arg>, req: IncomingMessage, arg: Arg): Answer | Promise<Answer> {
  const method = req.method === 'HEAD' ? 'GET' : req.method!;
  // Own keys only, should a method ever be named like one of Object's.
  const handle = Object.hasOwn(route, method) ? route[method as Method] : undefined;
  if (handle !== undefined) return handle(req, arg);
  const allow = Object.keys(route).map((name) => (name === 'GET' ? 'GET, HEAD' : name));
  return { ...text(405, 'method not allowed'), allow: allow.join(', ') };
}

/** A `{username}` path segment, percent-decoded; 400 when it does not decode or is not valid. */
function usernameOf(segment: string): string {
  let name = '';
  try {
    name = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded UTF-8: left empty, which checkUsername refuses like any invalid name.
  }
  checkUsername(name);
  return name;
}

function send(res: ServerResponse, { status, type, body, allow }: Answer): void {
  const headers = { 'content-type': type, 'content-length': Buffer.byteLength(body) };
  res.writeHead(status, allow === undefined ? headers : { ...headers, allow });
  res.end(body);
}

export function httpApp(deps: AppDeps): RequestListener {
  const { records } = deps;
  const serve = endpoints(deps);

  // By exact path; a handler gets the query.
  const exact = new Map(
    Object.entries<Route<URLSearchParams>>({
      '/': { GET: ok },
      '/hello': { GET: async () => ({ status: 200, type: HTML, body: await serve.hello() }) },
      '/longPoll': {
        async GET() {
          await serve.longPoll();
          return ok();
        },
      },
      '/long-operation': { GET: (_req, query) => json(200, serve.longOperation(query.getAll('n'))) },
      '/record': {
        GET: async (_req, query) => recordAnswer(await readRecord(records, query.getAll('name'))),
        PUT: async (req) => recordAnswer(await createRecord(records, await readJson(req))),
        POST: async (req) => recordAnswer(await updateRecord(records, await readJson(req))),
        DELETE: async (_req, query) => recordAnswer(await deleteRecord(records, query.getAll('name'))),
      },
    }),
  );

  // By the prefix before one `{username}` segment; a handler gets the checked username.
  const withUsername = new Map(
    Object.entries<Route<string>>({
      '/password/set/': {
        async POST(req, username) {
          await serve.setPassword(username, await readJson(req));
          return ok();
        },
      },
      '/password/verify/': {
        async POST(req, username) {
          await serve.verifyPassword(username, await readJson(req));
          return ok();
        },
      },
      '/user/set/': {
        async POST(req, username) {
          await serve.setUser(username, await readJson(req));
          return ok();
        },
      },
      '/user/get/': {
        GET: async (_req, username) => ({ status: 200, type: JSON_TYPE, body: await serve.getUser(username) }),
      },
    }),
  );

  async function answer(req: IncomingMessage): Promise<Answer> {
    checkVersion(req);
    // The path as sent, not normalised (`/user/set/..` names the user `..`), as Express routes it.
    const target = req.url!;
    const mark = target.indexOf('?');
    const path = mark === -1 ? target : target.slice(0, mark);
    const fixed = exact.get(path);
    if (fixed !== undefined) {
      return dispatch(fixed, req, new URLSearchParams(mark === -1 ? '' : target.slice(mark + 1)));
    }
    // Exactly one non-empty segment after the prefix: `/user/get/` and `/user/get/a/b` are 404.
    const cut = path.lastIndexOf('/') + 1;
    const named = withUsername.get(path.slice(0, cut));
    if (named === undefined || cut === path.length) return text(404, 'not found');
    // The username is checked before the method, as Express checks its route parameters.
    return dispatch(named, req, usernameOf(path.slice(cut)));
  }

  // Every refusal or failure becomes a short text answer (errorAnswer, shared with Express's).
  return (req, res) => {
    answer(req)
      .catch((err: unknown) => {
        const { status, message } = errorAnswer(err);
        return text(status, message);
      })
      .then((reply) => send(res, reply));
  };
}
