import { createServer, type RequestListener, type Server } from 'node:http';

/** Serves `app` (the Express app or the bare listener) on node:http's server, once it listens. */
export function listen(app: RequestListener, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    // By default Node takes a client's half-close (it shut its sending side after the request, as
    // `nc -N` and some proxies do) for an abort, and drops any answer not yet written: with two
    // workers, one that waits on the other's shard. RFC 9112 (9.6) says a half-close implies no
    // such thing. Node's own switch answers first, then closes; @types/node does not declare it.
    (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
