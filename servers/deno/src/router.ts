import { isValidUsername } from '../../lib-ts/validate.ts';
import { HttpError, text } from './http.ts';

/** A route of an exact path gets the request's URL; one of `/prefix/{username}` the username. */
export interface Route<Arg> {
  method: 'GET' | 'POST';
  handle(req: Request, arg: Arg): Response | Promise<Response>;
}

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

/** A 405 answer when the route does not take the request's method (HEAD goes with GET). */
function wrongMethod(route: Route<unknown>, req: Request): Response | undefined {
  const allowed = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
  if (allowed.includes(req.method)) return undefined;
  return text(405, 'method not allowed', { allow: allowed.join(', ') });
}

function dispatch({ exact, withUsername }: Routes, req: Request): Response | Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const fixed = exact.get(path);
  if (fixed !== undefined) return wrongMethod(fixed, req) ?? fixed.handle(req, url);
  // Only one non-empty segment may follow the prefix: `/user/get/` and `/user/get/a/b` are 404.
  const cut = path.lastIndexOf('/') + 1;
  const named = withUsername.get(path.slice(0, cut));
  if (named === undefined || cut === path.length) return text(404, 'not found');
  const refused = wrongMethod(named, req);
  if (refused !== undefined) return refused;
  const username = usernameOf(path.slice(cut));
  if (username === undefined) throw new HttpError(400, 'invalid username');
  return named.handle(req, username);
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
