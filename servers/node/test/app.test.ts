import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Records, pgPool, pgRecords } from '../../lib-ts/record.ts';
import { type App, BODY_LIMIT } from '../src/endpoints.ts';
import { expressApp } from '../src/express-app.ts';
import { httpApp } from '../src/http-app.ts';
import pg from 'pg';
import { listen } from '../src/server.ts';
import { MapStore } from '../src/store.ts';
import { freePort, raw, request, timed } from './http.ts';

// Every test below runs on both HTTP layers: the two must answer alike.
const APPS: [string, App][] = [
  ['express', expressApp],
  ['http', httpApp],
];

// `arena test node` runs the /record tests on a throw-away database with the contract's table.
const DB_URL = process.env.ARENA_DB_URL;
const HELLO = Buffer.from('<!DOCTYPE html><p>héllo</p>\n');
const config = { bcryptCost: 4, longPollMs: 200, helloDelayMs: 400, helloDelayEvery: 3, sortN: 10 };

/** The app on a free port: its base URL, and a function that stops it. */
async function serve(app: App, records: Records | undefined): Promise<{ base: string; stop: () => void }> {
  let hellos = 0;
  const listener = app({ config, helloHtml: HELLO, store: new MapStore(), records, nextHello: async () => ++hellos });
  const server: Server = await listen(listener, '127.0.0.1', 0);
  const stop = () => {
    server.closeAllConnections();
    server.close();
  };
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop };
}

for (const [kind, app] of APPS) {
  describe(`${kind}: the app on a listening server`, () => {
    let base: string;
    let stop: () => void;
    const get = (path: string) => request(base, path);
    const post = (path: string, body: string) => request(base, path, { body });

    before(async () => {
      ({ base, stop } = await serve(app, undefined));
    });

    after(() => stop());

    it('answers readiness', async () => {
      assert.deepEqual(await get('/'), { status: 200, type: 'text/plain; charset=utf-8', allow: undefined, body: 'OK' });
    });

    it('serves hello.html and delays exactly every K-th /hello without holding others', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => timed(() => get('/hello'))));
      for (const [answer] of answers) {
        assert.equal(answer.status, 200);
        assert.match(answer.type, /^text\/html/);
        assert.equal(answer.body, HELLO.toString('utf8'));
      }
      const slow = answers.filter(([, ms]) => ms >= 350).length;
      const fast = answers.filter(([, ms]) => ms < 200).length;
      assert.deepEqual([slow, fast], [2, 4]);
    });

    // Those Node's parser reads: it refuses others (HTTP/3.0, HTTP/9.9) with its own 400.
    it('answers a version other than HTTP/1.x with 505', async () => {
      for (const version of ['2.0', '0.9']) {
        assert.match(await raw(base, `GET / HTTP/${version}\r\nHost: x\r\n\r\n`), /^HTTP\/1\.1 505 /, version);
      }
      assert.match(await raw(base, 'GET / HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /);
    });

    it('sets and verifies passwords', async () => {
      assert.equal((await post('/password/set/alice', '{"password":"sécret"}')).status, 200);
      assert.equal((await post('/password/verify/alice', '{"password":"sécret"}')).status, 200);
      assert.equal((await post('/password/verify/alice', '{"password":"secret"}')).status, 403);
      assert.equal((await post('/password/verify/nobody', '{"password":"secret"}')).status, 404);
      assert.equal((await post('/password/set/alice', '{"password":"new"}')).status, 200);
      assert.equal((await post('/password/verify/alice', '{"password":"new"}')).status, 200);
      assert.equal((await post('/password/set/max', JSON.stringify({ password: 'é'.repeat(36) }))).status, 200);
    });

    it('refuses bad password bodies with 400', async () => {
      const bodies = ['', '{', 'null', '[]', '"pw"', '{}', '{"password":1}', JSON.stringify({ password: 'x'.repeat(73) })];
      for (const body of bodies) {
        for (const path of ['/password/set/bob', '/password/verify/bob']) {
          const answer = await post(path, body);
          assert.equal(answer.status, 400, `${path} ${body}`);
          assert.match(answer.type, /^text\/plain/);
        }
      }
      assert.equal((await request(base, '/password/set/bob', { method: 'POST' })).status, 400);
    });

    it('stores user objects and reads them back as JSON', async () => {
      const user = { name: 'Ann', age: 7, tags: ['a', 'ß'], nested: { ok: true, none: null } };
      assert.equal((await post('/user/set/ann', JSON.stringify(user))).status, 200);
      const answer = await get('/user/get/ann');
      assert.equal(answer.status, 200);
      assert.match(answer.type, /^application\/json/);
      assert.deepEqual(JSON.parse(answer.body), user);
      await post('/user/set/ann', '{"replaced":1}');
      assert.deepEqual(JSON.parse((await get('/user/get/ann')).body), { replaced: 1 });
      assert.equal((await get('/user/get/nobody')).status, 404);
      // A path is routed as sent, dot segments and all (raw: node's client would resolve them):
      // `..` is a valid username.
      const set = 'POST /user/set/.. HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{"dots":2}';
      assert.match(await raw(base, set), /^HTTP\/1\.1 200 /);
      const got = await raw(base, 'GET /user/get/.. HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.match(got, /^HTTP\/1\.1 200 [^]*\{"dots":2\}$/);
    });

    it('parses JSON whatever the Content-Type', async () => {
      assert.equal((await request(base, '/user/set/typed', { body: '{"a":1}', type: 'text/plain' })).status, 200);
      assert.deepEqual(JSON.parse((await get('/user/get/typed')).body), { a: 1 });
    });

    it('refuses non-object users with 400', async () => {
      for (const body of ['[]', 'null', '42', '"x"', 'true', '', '{"a":']) {
        assert.equal((await post('/user/set/carl', body)).status, 400, body);
      }
      const invalidUtf8 = Buffer.from([...Buffer.from('{"a":"'), 0xff, ...Buffer.from('"}')]);
      assert.equal((await request(base, '/user/set/carl', { body: invalidUtf8 })).status, 400);
    });

    it('accepts a body of exactly 64 KiB and refuses one byte more with 413', async () => {
      const body = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;
      assert.equal(Buffer.byteLength(body(BODY_LIMIT)), BODY_LIMIT);
      assert.equal((await post('/user/set/big', body(BODY_LIMIT))).status, 200);
      const tooBig = await post('/user/set/big', body(BODY_LIMIT + 1));
      assert.equal(tooBig.status, 413);
      assert.match(tooBig.type, /^text\/plain/);
      assert.equal((await post('/password/set/big', body(BODY_LIMIT + 1))).status, 413);
    });

    it('refuses a chunked body over the limit, then serves the next request on the connection', async () => {
      const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
      const head = 'POST /user/set/chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n';
      const answer = await raw(base, `${head}${chunk}${chunk}0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 413 [^]*\r\n\r\n[^]*HTTP\/1\.1 200 [^]*\r\n\r\nOK$/);
    });

    it('answers HEAD like GET, without the body', async () => {
      const answer = await raw(base, 'HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.match(answer, new RegExp(`\r\ncontent-length: ${HELLO.length}\r\n`, 'i'));
      assert.ok(answer.endsWith('\r\n\r\n'), answer);
    });

    it('checks usernames after percent-decoding', async () => {
      assert.equal((await get(`/user/get/${'x'.repeat(64)}`)).status, 404);
      for (const path of ['/user/get/bad%20name', `/user/get/${'x'.repeat(65)}`, '/user/get/a%2Fb', '/user/get/%zz', '/user/get/%C3%A9']) {
        assert.equal((await get(path)).status, 400, path);
      }
      assert.equal((await post('/user/set/bad%20name', '{}')).status, 400);
      assert.equal((await post('/password/set/bad%20name', '{"password":"x"}')).status, 400);
      // Before the method: an invalid name is refused whatever is asked of it.
      assert.equal((await get('/password/set/bad%20name')).status, 400);
    });

    it('answers unknown paths with a short 404', async () => {
      for (const path of ['/nope', '/user/get/', '/user/get/a/b', '/user/get', '/HELLO', '/hello/', '/password/set/']) {
        const answer = await get(path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.body, 'not found');
      }
    });

    it('answers a wrong method on a known path with 405', async () => {
      const cases: [string, string, string][] = [
        ['POST', '/', 'GET, HEAD'],
        ['DELETE', '/hello', 'GET, HEAD'],
        ['GET', '/password/set/alice', 'POST'],
        ['GET', '/password/verify/alice', 'POST'],
        ['PUT', '/user/set/alice', 'POST'],
        ['POST', '/user/get/alice', 'GET, HEAD'],
        ['POST', '/longPoll', 'GET, HEAD'],
        ['POST', '/long-operation', 'GET, HEAD'],
        ['PATCH', '/record', 'GET, HEAD, PUT, POST, DELETE'],
      ];
      for (const [method, path, allow] of cases) {
        const answer = await request(base, path, { method });
        assert.equal(answer.status, 405, `${method} ${path}`);
        assert.equal(answer.allow, allow);
        assert.ok(answer.body.length > 0);
      }
      // A method newer than node's own client knows.
      const query = await raw(base, 'QUERY /hello HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.match(query, /^HTTP\/1\.1 405 [^]*\r\nallow: GET, HEAD\r\n/i);
    });

    it('long-polls without holding other requests', async () => {
      const [answers, ms] = await timed(() => Promise.all(Array.from({ length: 20 }, () => get('/longPoll'))));
      assert.ok(answers.every((a) => a.status === 200 && a.body === 'OK'));
      assert.ok(ms >= 190 && ms < 1000, `${ms} ms`);
    });

    it('sorts and answers the checksum', async () => {
      const answer = await get('/long-operation?n=1000');
      assert.match(answer.type, /^application\/json/);
      assert.equal(answer.body, '{"message":"done","n":1000,"checksum":169238.799942987}');
      assert.deepEqual(JSON.parse((await get('/long-operation')).body), { message: 'done', n: 10, checksum: 10.676268897597582 });
      assert.equal(JSON.parse((await get('/long-operation?n=0001')).body).checksum, 0.5682303266439076);
      assert.equal(JSON.parse((await get('/long-operation?x=?&n=1')).body).checksum, 0.5682303266439076);
      for (const n of ['0', 'abc', '-1', '1.5', '1e3', '200001', '', '1&n=2', '%2B1']) {
        assert.equal((await get(`/long-operation?n=${n}`)).status, 400, n);
      }
    });

    it('/record: checks requests before the database, and answers 503 without one', async () => {
      for (const path of ['/record', '/record?name=', '/record?name=bad%20name', '/record?name=a&name=b']) {
        assert.equal((await get(path)).status, 400, path);
        assert.equal((await request(base, path, { method: 'DELETE' })).status, 400, path);
      }
      for (const body of ['', '[]', '{"name":"n"}', '{"name":"n","value":1}', '{"name":"a b","value":""}']) {
        assert.equal((await request(base, '/record', { method: 'PUT', body })).status, 400, body);
        assert.equal((await post('/record', body)).status, 400, body);
      }
      const big = JSON.stringify({ name: 'n', value: 'v'.repeat(BODY_LIMIT) });
      assert.equal((await request(base, '/record', { method: 'PUT', body: big })).status, 413);
      for (const answer of [await get('/record?name=r1'), await post('/record', '{"name":"r1","value":"v"}')]) {
        assert.deepEqual([answer.status, answer.type], [503, 'text/plain; charset=utf-8']);
        assert.match(answer.body, /ARENA_DB_URL/);
      }
    });

    it('never answers an error with HTML or a stack trace', async () => {
      for (const answer of [await post('/user/set/x', '{bad'), await get('/user/get/%zz'), await get('/missing')]) {
        assert.match(answer.type, /^text\/plain/);
        assert.ok(answer.body.length > 0 && answer.body.length < 100 && !answer.body.includes('<'), answer.body);
      }
    });
  });

  describe(`${kind}: /record with the database unreachable`, () => {
    it('answers 503 within the connect timeout and keeps serving', async () => {
      const pool = pgPool(pg.Pool, `postgresql://arena:arena@127.0.0.1:${await freePort()}/arena`, 1, 'node');
      const { base, stop } = await serve(app, pgRecords(pool));
      try {
        const [answer, ms] = await timed(() => request(base, '/record?name=r1'));
        assert.deepEqual([answer.status, answer.body], [503, 'database unavailable']);
        assert.ok(ms < 3000, `${ms} ms`);
        assert.equal((await request(base, '/')).status, 200);
      } finally {
        stop();
        await pool.end();
      }
    });
  });

  describe(`${kind}: /record on PostgreSQL`, { skip: DB_URL ? false : 'ARENA_DB_URL is not set' }, () => {
    const POOL = 2;
    const pool = DB_URL ? pgPool(pg.Pool, DB_URL, POOL, 'node') : undefined;
    let base: string;
    let stop: () => void;
    // Unique to this run, so that a record left by an interrupted one does not get in the way.
    const name = (label: string) => `node-test.${kind}.${label}.${process.pid}`;
    const send = (method: string, path: string, body?: object) =>
      request(base, path, { method, body: body && JSON.stringify(body) });
    const path = (name: string) => `/record?name=${encodeURIComponent(name)}`;

    before(async () => {
      ({ base, stop } = await serve(app, pgRecords(pool!)));
    });

    after(async () => {
      stop();
      await pool?.end();
    });

    it('creates, reads, updates and deletes a record', async () => {
      const record = { name: name('crud'), value: "ünï x' OR '1'='1" };
      const created = await send('PUT', '/record', { ...record, ignored: true });
      assert.deepEqual([created.status, created.type], [201, 'application/json; charset=utf-8']);
      assert.deepEqual(JSON.parse(created.body), record);
      assert.equal((await send('PUT', '/record', { ...record, value: 'other' })).status, 409);
      assert.deepEqual(JSON.parse((await send('GET', path(record.name))).body), record);
      const updated = { ...record, value: '' };
      assert.deepEqual(JSON.parse((await send('POST', '/record', updated)).body), updated);
      assert.deepEqual(JSON.parse((await send('DELETE', path(record.name))).body), updated);
      assert.equal((await send('DELETE', path(record.name))).status, 404);
      assert.equal((await send('GET', path(record.name))).status, 404);
      assert.equal((await send('POST', '/record', updated)).status, 404);
      assert.equal((await send('GET', path(record.name))).status, 404);
    });

    it('creates a name once when many try at the same time, within its pool', async () => {
      const record = { name: name('race'), value: 'v' };
      const answers = await Promise.all(Array.from({ length: 12 }, () => send('PUT', '/record', record)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(11).fill(409)]);
      assert.ok(pool!.totalCount <= POOL, `${pool!.totalCount} connections`);
      assert.equal((await send('DELETE', path(record.name))).status, 200);
    });
  });
}
