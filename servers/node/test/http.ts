import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';

export interface Answer {
  status: number;
  type: string;
  allow: string | undefined;
  body: string;
}

/** One request on a new connection (agent: false), as a separate client would send it. */
export function request(
  base: string,
  path: string,
  options: { method?: string; body?: string | Buffer; type?: string } = {},
): Promise<Answer> {
  const { method = options.body === undefined ? 'GET' : 'POST', body, type = 'application/json' } = options;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method, agent: false, headers: body === undefined ? {} : { 'content-type': type } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: res.headers['content-type'] ?? '',
            allow: res.headers.allow,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs fn and returns how long it took, in ms. */
export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await fn();
  return [result, performance.now() - start];
}

/** A port nothing listens on (just now). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Sends `bytes` as they are on a new connection, ends its sending side, and returns all it got back. */
export async function raw(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk));
  socket.end(bytes);
  await once(socket, 'close');
  return answer;
}
