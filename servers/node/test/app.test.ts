import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT, createApp } from '../src/app.ts';
import { listen } from '../src/server.ts';
import { MapStore } from '../src/store.ts';
import { request, timed } from './http.ts';

const HELLO = Buffer.from('<!DOCTYPE html><p>héllo</p>\n');
const config = { bcryptCost: 4, longPollMs: 200, helloDelayMs: 400, helloDelayEvery: 3, sortN: 10 };

describe('the Express app on a listening server', () => {
  let server: Server;
  let base: string;
  let hellos = 0;
  const get = (path: string) => request(base, path);
  const post = (path: string, body: string) => request(base, path, { body });

  before(async () => {
    const app = createApp({ config, helloHtml: HELLO, store: new MapStore(), nextHello: async () => ++hellos });
    server = await listen(app, '127.0.0.1', 0);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

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

  it('checks usernames after percent-decoding', async () => {
    assert.equal((await get(`/user/get/${'x'.repeat(64)}`)).status, 404);
    for (const path of ['/user/get/bad%20name', `/user/get/${'x'.repeat(65)}`, '/user/get/a%2Fb', '/user/get/%zz', '/user/get/%C3%A9']) {
      assert.equal((await get(path)).status, 400, path);
    }
    assert.equal((await post('/user/set/bad%20name', '{}')).status, 400);
    assert.equal((await post('/password/set/bad%20name', '{"password":"x"}')).status, 400);
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
    ];
    for (const [method, path, allow] of cases) {
      const answer = await request(base, path, { method });
      assert.equal(answer.status, 405, `${method} ${path}`);
      assert.equal(answer.allow, allow);
      assert.ok(answer.body.length > 0);
    }
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
    for (const n of ['0', 'abc', '-1', '1.5', '1e3', '200001', '', '1&n=2', '%2B1']) {
      assert.equal((await get(`/long-operation?n=${n}`)).status, 400, n);
    }
  });

  it('never answers an error with HTML or a stack trace', async () => {
    for (const answer of [await post('/user/set/x', '{bad'), await get('/user/get/%zz'), await get('/missing')]) {
      assert.match(answer.type, /^text\/plain/);
      assert.ok(answer.body.length > 0 && answer.body.length < 100 && !answer.body.includes('<'), answer.body);
    }
  });
});
