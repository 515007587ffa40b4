import assert from 'node:assert/strict';
import { BODY_LIMIT, HttpError, readBody, readJson } from './http.ts';

const post = (body: BodyInit | null) => new Request('http://x/', { method: 'POST', body });

/** A body streamed in 1000-byte chunks, with no Content-Length to trust. */
function streamed(size: number): ReadableStream<Uint8Array> {
  let left = size;
  return new ReadableStream({
    pull(controller) {
      if (left === 0) return controller.close();
      const chunk = new Uint8Array(Math.min(1000, left)).fill(0x20);
      left -= chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (err) {
    assert.ok(err instanceof HttpError);
    return err.status;
  }
}

Deno.test('a body of exactly the limit is read whole', async () => {
  assert.equal((await readBody(post(new Uint8Array(BODY_LIMIT)))).byteLength, BODY_LIMIT);
  assert.equal((await readBody(post(streamed(BODY_LIMIT)))).byteLength, BODY_LIMIT);
  assert.equal((await readBody(post(null))).byteLength, 0);
});

Deno.test('one byte more is refused with 413, declared or streamed', async () => {
  assert.equal(await statusOf(readBody(post(new Uint8Array(BODY_LIMIT + 1)))), 413);
  assert.equal(await statusOf(readBody(post(streamed(BODY_LIMIT + 1)))), 413);
});

Deno.test('a body that breaks off is a 400', async () => {
  const broken = new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(10));
      controller.error(new Error('connection reset'));
    },
  });
  assert.equal(await statusOf(readBody(post(broken))), 400);
});

Deno.test('JSON bodies must be UTF-8 JSON', async () => {
  assert.deepEqual(await readJson(post('{"a":"ü"}')), { json: '{"a":"ü"}', value: { a: 'ü' } });
  for (const bad of ['', '{', '{bad json', new Uint8Array([0x22, 0xff, 0x22])]) {
    assert.equal(await statusOf(readJson(post(bad))), 400, String(bad));
  }
});
