import type { Server } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { serve } from '../src/app.ts';
import { BODY_LIMIT } from '../src/http.ts';
import { bunRecords, createSql } from '../src/records.ts';

const HELLO = new TextEncoder().encode('<!DOCTYPE html><p>héllo</p>\n');
const config = {
  host: '127.0.0.1',
  port: 0,
  bcryptCost: 4,
  longPollMs: 200,
  helloDelayMs: 400,
  helloDelayEvery: 3,
  sortN: 10,
};

/** Runs fn and returns how long it took, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await fn();
  return [result, performance.now() - start];
}

/** Sends raw bytes and collects everything the server answers until it closes the connection. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the server on a live port', () => {
  let server: Server<undefined>;
  const call = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), init);
  const post = (path: string, body: RequestInit['body']) => call(path, { method: 'POST', body });
  const status = async (answer: Promise<Response>) => (await answer).status;

  beforeAll(() => {
    server = serve(config, HELLO, undefined);
  });

  afterAll(() => server.stop(true));

  test('answers readiness', async () => {
    const answer = await call('/');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toStartWith('text/plain');
    expect(await answer.text()).toBe('OK');
  });

  test('serves hello.html and delays exactly every K-th /hello without holding others', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => timed(() => call('/hello'))));
    for (const [answer] of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toStartWith('text/html');
      expect(new Uint8Array(await answer.arrayBuffer())).toEqual(HELLO);
    }
    const slow = answers.filter(([, ms]) => ms >= 350).length;
    const fast = answers.filter(([, ms]) => ms < 200).length;
    expect([slow, fast]).toEqual([2, 4]);
  });

  test('sets and verifies passwords', async () => {
    expect(await status(post('/password/set/alice', '{"password":"sécret"}'))).toBe(200);
    expect(await status(post('/password/verify/alice', '{"password":"sécret"}'))).toBe(200);
    expect(await status(post('/password/verify/alice', '{"password":"secret"}'))).toBe(403);
    expect(await status(post('/password/verify/nobody', '{"password":"secret"}'))).toBe(404);
    expect(await status(post('/password/set/alice', '{"password":"new"}'))).toBe(200);
    expect(await status(post('/password/verify/alice', '{"password":"new"}'))).toBe(200);
    expect(await status(post('/password/set/empty', '{"password":""}'))).toBe(200);
    expect(await status(post('/password/verify/empty', '{"password":""}'))).toBe(200);
  });

  test('refuses bad password bodies with 400', async () => {
    const bodies = ['', '{', 'null', '[]', '"pw"', '{}', '{"password":1}', JSON.stringify({ password: 'x'.repeat(73) })];
    for (const body of bodies) {
      for (const path of ['/password/set/bob', '/password/verify/bob']) {
        const answer = await post(path, body);
        expect(answer.status).toBe(400);
        expect(await answer.text()).not.toBeEmpty();
      }
    }
  });

  test('stores users and gives back their JSON as it came', async () => {
    // The integer is beyond float64's precision: re-encoding a parsed value would change it.
    const raw = '{"name":"Ada", "tags":["教育"], "big":12345678901234567890, "nested":{"ok":true}}';
    expect(await status(post('/user/set/ada', raw))).toBe(200);
    const answer = await call('/user/get/ada');
    expect(answer.headers.get('content-type')).toStartWith('application/json');
    expect(await answer.text()).toBe(raw);
    expect(await status(post('/user/set/ada', '{"replaced":1}'))).toBe(200);
    expect(await (await call('/user/get/ada')).json()).toEqual({ replaced: 1 });
    expect(await status(call('/user/get/nobody'))).toBe(404);
  });

  test('refuses non-object and invalid bodies for /user/set', async () => {
    for (const body of ['[]', 'null', '42', '"x"', 'true', '', '{"a":']) {
      expect(await status(post('/user/set/carl', body))).toBe(400);
    }
    const invalidUtf8 = Uint8Array.of(...Buffer.from('{"a":"'), 0xff, ...Buffer.from('"}'));
    expect(await status(post('/user/set/carl', invalidUtf8))).toBe(400);
    expect(await status(call('/user/get/carl'))).toBe(404);
  });

  test('accepts a body of exactly 64 KiB and refuses one byte more with 413, chunked or not', async () => {
    const body = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;
    // A stream body goes out with Transfer-Encoding: chunked, so no Content-Length gives it away.
    const chunked = (text: string) =>
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < text.length; i += 8192) controller.enqueue(Buffer.from(text.slice(i, i + 8192)));
          controller.close();
        },
      });
    expect(await status(post('/user/set/big', body(BODY_LIMIT)))).toBe(200);
    expect(await status(post('/user/set/big', chunked(body(BODY_LIMIT))))).toBe(200);
    for (const tooBig of [body(BODY_LIMIT + 1), chunked(body(BODY_LIMIT + 1)), body(300_000)]) {
      const answer = await post('/user/set/big2', tooBig);
      expect(answer.status).toBe(413);
      expect(await answer.text()).not.toBeEmpty();
    }
    expect(await status(post('/password/set/big', `{"password":"${'p'.repeat(70_000)}"}`))).toBe(413);
    expect(await status(call('/user/get/big2'))).toBe(404);
  });

  test('refuses a declared huge body with 413 and a message, without reading it', async () => {
    const head = 'POST /user/set/huge HTTP/1.1\r\nHost: x\r\nContent-Length: 200000000\r\n\r\n{}';
    const answer = await raw(server.port!, head);
    expect(answer).toStartWith('HTTP/1.1 413');
    expect(answer).toEndWith('body larger than 65536 bytes');
  });

  test('checks usernames after percent-decoding', async () => {
    expect(await status(call(`/user/get/${'x'.repeat(64)}`))).toBe(404);
    for (const path of ['bad%20name', 'x'.repeat(65), 'a%2Fb', '%zz', '%C3%A9', 'a%00b']) {
      expect(await status(call(`/user/get/${path}`))).toBe(400);
    }
    expect(await status(post('/user/set/bad%20name', '{}'))).toBe(400);
    expect(await status(post('/password/set/bad%20name', '{"password":"x"}'))).toBe(400);
  });

  test('answers unknown paths with a short 404', async () => {
    for (const path of ['/nope', '/user/get/', '/user/get/a/b', '/user/get', '/HELLO', '/hello/', '/password/set/']) {
      const answer = await call(path);
      expect(answer.status).toBe(404);
      expect(await answer.text()).toBe('not found');
    }
  });

  test.each([
    ['POST', '/', 'GET, HEAD'],
    ['DELETE', '/hello', 'GET, HEAD'],
    ['GET', '/password/set/alice', 'POST'],
    ['GET', '/password/verify/alice', 'POST'],
    ['PUT', '/user/set/alice', 'POST'],
    ['POST', '/user/get/alice', 'GET, HEAD'],
    ['POST', '/longPoll', 'GET, HEAD'],
    ['PATCH', '/long-operation', 'GET, HEAD'],
    ['PATCH', '/record', 'GET, HEAD, PUT, POST, DELETE'],
  ])('answers %s %s with 405', async (method, path, allow) => {
    const answer = await call(path, { method });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(await answer.text()).not.toBeEmpty();
  });

  test('long-polls without holding other requests', async () => {
    const [answers, ms] = await timed(() => Promise.all(Array.from({ length: 20 }, () => call('/longPoll'))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(1000);
  });

  test('/record: checks requests before the database, and answers 503 without one', async () => {
    for (const path of ['/record', '/record?name=', '/record?name=bad%20name', '/record?name=a&name=b']) {
      expect(await status(call(path))).toBe(400);
      expect(await status(call(path, { method: 'DELETE' }))).toBe(400);
    }
    for (const body of ['', '[]', '{"name":"n"}', '{"name":"n","value":1}', '{"name":"a b","value":""}']) {
      expect(await status(call('/record', { method: 'PUT', body }))).toBe(400);
      expect(await status(post('/record', body))).toBe(400);
    }
    const big = JSON.stringify({ name: 'n', value: 'v'.repeat(BODY_LIMIT) });
    expect(await status(call('/record', { method: 'PUT', body: big }))).toBe(413);
    for (const answer of [await call('/record?name=r1'), await post('/record', '{"name":"r1","value":"v"}')]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toStartWith('text/plain');
      expect(await answer.text()).toContain('ARENA_DB_URL');
    }
  });

  test('sorts and answers the checksum as shortest round-trip JSON', async () => {
    const answer = await call('/long-operation?n=1000');
    expect(answer.headers.get('content-type')).toStartWith('application/json');
    expect(await answer.text()).toBe('{"message":"done","n":1000,"checksum":169238.799942987}');
    const json = async (path: string) => (await call(path)).json();
    expect(await json('/long-operation')).toEqual({ message: 'done', n: 10, checksum: 10.676268897597582 });
    expect(await json('/long-operation?n=0001')).toEqual({ message: 'done', n: 1, checksum: 0.5682303266439076 });
    for (const n of ['0', 'abc', '-1', '1.5', '1e3', '200001', '', '1&n=2', '%2B1', '99999999999999999999999']) {
      expect(await status(call(`/long-operation?n=${n}`))).toBe(400);
    }
  });
});

/** A port nothing listens on (just now). */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

test('/record with the database unreachable: 503 within the connect timeout, the rest serves', async () => {
  const sql = createSql(`postgresql://arena:arena@127.0.0.1:${freePort()}/arena`, 1);
  const server = serve(config, HELLO, bunRecords(sql));
  try {
    const [answer, ms] = await timed(() => fetch(new URL('/record?name=r1', server.url)));
    expect(answer.status).toBe(503);
    expect(await answer.text()).toBe('database unavailable');
    expect(ms).toBeLessThan(3000);
    expect((await fetch(server.url)).status).toBe(200);
  } finally {
    server.stop(true);
    await sql.close();
  }
});

// `arena test bun` runs these on a throw-away database with the contract's record table.
const DB_URL = process.env.ARENA_DB_URL;

describe.skipIf(DB_URL === undefined)('/record on the ARENA_DB_URL database (skipped without it)', () => {
  const POOL = 2;
  let sql: ReturnType<typeof createSql>;
  let server: Server<undefined>;
  const send = (method: string, path: string, body?: object) =>
    fetch(new URL(path, server.url), { method, body: body && JSON.stringify(body) });
  // Unique to this run, so that a record left by an interrupted one does not get in the way.
  const name = (label: string) => `bun-test.${label}.${process.pid}`;
  const path = (name: string) => `/record?name=${encodeURIComponent(name)}`;

  beforeAll(() => {
    sql = createSql(DB_URL!, POOL);
    server = serve(config, HELLO, bunRecords(sql));
  });

  afterAll(async () => {
    server.stop(true);
    await sql.close();
  });

  test('creates, reads, updates and deletes a record', async () => {
    const record = { name: name('crud'), value: "ünï x' OR '1'='1" };
    const created = await send('PUT', '/record', { ...record, ignored: true });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toStartWith('application/json');
    expect(await created.json()).toEqual(record);
    expect((await send('PUT', '/record', { ...record, value: 'other' })).status).toBe(409);
    expect(await (await send('GET', path(record.name))).json()).toEqual(record);
    const updated = { ...record, value: '' };
    expect(await (await send('POST', '/record', updated)).json()).toEqual(updated);
    expect(await (await send('DELETE', path(record.name))).json()).toEqual(updated);
    expect((await send('DELETE', path(record.name))).status).toBe(404);
    expect((await send('POST', '/record', updated)).status).toBe(404);
    expect((await send('GET', path(record.name))).status).toBe(404);
  });

  test('creates a name once when many try at the same time', async () => {
    const record = { name: name('race'), value: 'v' };
    const answers = await Promise.all(Array.from({ length: 12 }, () => send('PUT', '/record', record)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(11).fill(409)]);
    expect((await send('DELETE', path(record.name))).status).toBe(200);
  });
});
