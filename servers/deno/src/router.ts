import { isValidUsername } from '../../lib-ts/validate.ts';
import { HttpError, text } from './http.ts';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * A path's handlers by method (HEAD is served by GET). A route of an exact path gets the
 * request's URL; one of `/prefix/{username}` the username.
 */
export type Route<Arg> = {
  [method in Method]?: (req: Request, arg: Arg) => Response | Promise<Response>;
};

export interface Routes {
  /** By exact path, e.g. `/hello`. */
  exact: Map<string, Route<URL>>;
  /** By the prefix before a username, e.g. `/user/get/`. */
  withUsername: Map<string, Route<string>>;
}

/** The username of a path segment, percent-decoded, or undefined when it is not a valid one. */
export function usernameOf(segment: string): string | undefined {
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return isValidUsername(name) ? name : undefined;
}

/** The route's handler of the request's method, or undefined when it has none. */
function handlerOf<Arg>(route: Route<Arg>, req: Request) {
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  // Own keys only: a method such as `constructor` must not find Object's.
  return Object.hasOwn(route, method) ? route[method as Method] : undefined;
}

function wrongMethod<Arg>(route: Route<Arg>): Response {
  const allow = Object.keys(route).map((method) => method === 'GET' ? 'GET, HEAD' : method);
  return text(405, 'method not allowed', { allow: allow.join(', ') });
}

function dispatch({ exact, withUsername }: Routes, req: Request): Response | Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const fixed = exact.get(path);
  if (fixed !== undefined) return handlerOf(fixed, req)?.(req, url) ?? wrongMethod(fixed);
  // Only one non-empty segment may follow the prefix: `/user/get/` and `/user/get/a/b` are 404.
  const cut = path.lastIndexOf('/') + 1;
  const named = withUsername.get(path.slice(0, cut));
  if (named === undefined || cut === path.length) return text(404, 'not found');
  const handle = handlerOf(named, req);
  if (handle === undefined) return wrongMethod(named);
  const username = usernameOf(path.slice(cut));
  if (username === undefined) throw new HttpError(400, 'invalid username');
  return handle(req, username);
}

/** The fetch handler for Deno.serve: routes, and turns every error into a short text answer. */
export function router(routes: Routes): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      return await dispatch(routes, req);
    } catch (err) {
      if (err instanceof HttpError) return text(err.status, err.message);
      console.error(err);
      return text(500, 'internal server error');
    }
  };
}
