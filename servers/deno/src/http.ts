// Answers and request bodies, as the contract wants them: short text errors, bodies of at most
// 64 KiB read whatever the Content-Type says.

export const BODY_LIMIT = 65536;

/** An error whose message is safe to show the client. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export function text(status: number, body: string, headers: HeadersInit = {}): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  });
}

export function ok(): Response {
  return text(200, 'OK');
}

const tooLarge = () => new HttpError(413, `body larger than ${BODY_LIMIT} bytes`);

/** The whole body, refused with 413 as soon as it is known to exceed BODY_LIMIT. */
export async function readBody(req: Request): Promise<Uint8Array> {
  if (Number(req.headers.get('content-length')) > BODY_LIMIT) throw tooLarge();
  if (req.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Counted as it arrives: a chunked body has no Content-Length to check up front.
    for await (const chunk of req.body) {
      size += chunk.byteLength;
      if (size > BODY_LIMIT) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'malformed request body');
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body's JSON text and its parsed value; 400 when it is not UTF-8 JSON. */
export async function readJson(req: Request): Promise<{ json: string; value: unknown }> {
  const bytes = await readBody(req);
  try {
    const json = utf8.decode(bytes);
    return { json, value: JSON.parse(json) };
  } catch {
    throw new HttpError(400, 'body is not valid JSON');
  }
}
