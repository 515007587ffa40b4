// The contract on Express 5: the thesis' and the honours report's framework (express-cluster and
// express-single). What each endpoint does is endpoints.ts'; this is Express's routing, body
// parsing and answers around it.
import express, { type NextFunction, type Request, type Response } from 'express';
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
  checkUsername,
  checkVersion,
  endpoints,
  errorAnswer,
  parseJson,
} from './endpoints.ts';

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

// Raw bytes rather than express.json(): clients' Content-Type is not trusted, and
// body-parser's JSON parser turns an empty body into {} instead of refusing it.
const jsonBody = [
  express.raw({ type: () => true, limit: BODY_LIMIT }),
  (req: Request, _res: Response, next: NextFunction) => {
    req.body = parseJson(req.body);
    next();
  },
];

/** Every value of `key` in the query, parsed as deno and bun parse it. */
function queryValues(req: Request, key: string): string[] {
  return new URL(req.originalUrl, 'http://localhost').searchParams.getAll(key);
}

function sendRecord(res: Response, answer: RecordAnswer): void {
  if ('record' in answer) res.status(answer.status).json(answer.record);
  else sendText(res, answer.status, answer.message);
}

// Replaces Express's HTML error page: a short text, never a stack trace.
function errorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  const { status, message } = errorAnswer(err);
  sendText(res, status, message);
}

export function expressApp(deps: AppDeps): express.Express {
  const { records } = deps;
  const serve = endpoints(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Only the contract's exact paths exist: no /HELLO, no /hello/.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    checkVersion(req);
    next();
  });

  app.param('username', (_req: Request, _res: Response, next: NextFunction, name: string) => {
    checkUsername(name);
    next();
  });

  app.route('/').get(ok).all(methodNotAllowed('GET, HEAD'));

  app
    .route('/hello')
    .get(async (_req, res) => {
      res.type('html').send(await serve.hello());
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/password/set/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      await serve.setPassword(req.params.username, req.body);
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/password/verify/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      await serve.verifyPassword(req.params.username, req.body);
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/user/set/:username')
    .post(jsonBody, async (req: Request<{ username: string }>, res: Response) => {
      await serve.setUser(req.params.username, req.body);
      ok(req, res);
    })
    .all(methodNotAllowed('POST'));

  app
    .route('/user/get/:username')
    .get(async (req: Request<{ username: string }>, res: Response) => {
      res.type('application/json').send(await serve.getUser(req.params.username));
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/longPoll')
    .get(async (req, res) => {
      await serve.longPoll();
      ok(req, res);
    })
    .all(methodNotAllowed('GET, HEAD'));

  app
    .route('/long-operation')
    .get((req, res) => {
      res.json(serve.longOperation(queryValues(req, 'n')));
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
