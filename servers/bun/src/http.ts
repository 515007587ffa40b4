import type { BunRequest, Server } from 'bun';

export const BODY_LIMIT = 65536;

/** An error whose status and message are safe to show the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** A short text/plain answer: every error of the contract carries one. */
export function text(status: number, message: string, headers?: Record<string, string>): Response {
  return new Response(message, { status, headers });
}

export type Handler = (req: BunRequest, server: Server<undefined>) => Response | Promise<Response>;

/**
 * One path's handlers by method. Bun's router hands a method it has no handler for to the
 * not-found fallback; the contract wants 405 for a known path, so the method is dispatched here.
 */
export function methods(handlers: { [method in 'GET' | 'PUT' | 'POST' | 'DELETE']?: Handler }): Handler {
  const allow = Object.keys(handlers)
    .map((method) => (method === 'GET' ? 'GET, HEAD' : method))
    .join(', ');
  return (req, server) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    // Own keys only: a method such as `constructor` must not find Object's.
    const handler = Object.hasOwn(handlers, method) ? handlers[method as keyof typeof handlers] : undefined;
    return handler ? handler(req, server) : text(405, 'method not allowed', { Allow: allow });
  };
}

// Closing the connection spares Bun draining the rest of a body nobody will read.
const tooLarge = () => new HttpError(413, `body larger than ${BODY_LIMIT} bytes`, { Connection: 'close' });

/**
 * The body, at most BODY_LIMIT bytes. A declared larger length is refused before reading;
 * a chunked body is counted as it arrives and refused at the first byte too many.
 */
async function readBody(req: Request): Promise<Uint8Array> {
  if (Number(req.headers.get('content-length') ?? 0) > BODY_LIMIT) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body ?? []) {
    size += chunk.byteLength;
    if (size > BODY_LIMIT) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body parsed as JSON whatever its Content-Type; an empty or invalid one is a 400. */
export async function readJson(req: Request): Promise<{ value: unknown; raw: string }> {
  const body = await readBody(req);
  try {
    const raw = utf8.decode(body);
    return { value: JSON.parse(raw), raw };
  } catch {
    throw new HttpError(400, 'body is not valid JSON');
  }
}
