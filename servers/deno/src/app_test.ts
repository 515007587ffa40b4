import assert from 'node:assert/strict';
import { createHandler } from './app.ts';
import { BODY_LIMIT } from './http.ts';

const HELLO = new TextEncoder().encode('<!DOCTYPE html><p>héllo</p>\n');
const config = {
  bcryptCost: 4,
  longPollMs: 200,
  helloDelayMs: 400,
  helloDelayEvery: 3,
  sortN: 10,
};

interface Answer {
  status: number;
  type: string | null;
  allow: string | null;
  body: string;
}

/** Runs `body` against a fresh server on a free port, then shuts the server down. */
function serverTest(name: string, body: (call: Call) => Promise<void>): void {
  Deno.test(name, async () => {
    const server = Deno.serve(
      { hostname: '127.0.0.1', port: 0, onListen() {} },
      createHandler(config, HELLO),
    );
    const call: Call = async (method, path, body) => {
      const res = await fetch(`http://127.0.0.1:${server.addr.port}${path}`, { method, body });
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        allow: res.headers.get('allow'),
        body: await res.text(),
      };
    };
    try {
      await body(call);
    } finally {
      await server.shutdown();
    }
  });
}

type Call = (method: string, path: string, body?: BodyInit) => Promise<Answer>;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

serverTest('answers readiness', async (call) => {
  assert.deepEqual(await call('GET', '/'), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    allow: null,
    body: 'OK',
  });
});

serverTest('serves hello.html and delays exactly every K-th /hello', async (call) => {
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => timed(() => call('GET', '/hello'))),
  );
  for (const [answer] of answers) {
    assert.equal(answer.status, 200);
    assert.equal(answer.type, 'text/html; charset=utf-8');
    assert.equal(answer.body, new TextDecoder().decode(HELLO));
  }
  const slow = answers.filter(([, ms]) => ms >= 350).length;
  const fast = answers.filter(([, ms]) => ms < 200).length;
  assert.deepEqual([slow, fast], [2, 4]);
});

serverTest('sets and verifies passwords', async (call) => {
  const password = (path: string, password: string) =>
    call('POST', path, JSON.stringify({ password }));
  assert.equal((await password('/password/set/alice', 'sécret')).status, 200);
  assert.equal((await password('/password/verify/alice', 'sécret')).status, 200);
  assert.equal((await password('/password/verify/alice', 'secret')).status, 403);
  assert.equal((await password('/password/verify/nobody', 'secret')).status, 404);
  assert.equal((await password('/password/set/alice', 'new')).status, 200);
  assert.equal((await password('/password/verify/alice', 'new')).status, 200);
  assert.equal((await password('/password/set/max', 'é'.repeat(36))).status, 200);
  assert.equal((await password('/password/set/max', 'é'.repeat(37))).status, 400);
});

serverTest('refuses bad password bodies with 400', async (call) => {
  for (const body of ['', '{', 'null', '[]', '"pw"', '{}', '{"password":1}']) {
    for (const path of ['/password/set/bob', '/password/verify/bob']) {
      const answer = await call('POST', path, body);
      assert.equal(answer.status, 400, `${path} ${body}`);
      assert.equal(answer.type, 'text/plain; charset=utf-8');
    }
  }
});

serverTest('stores user objects and reads them back as JSON', async (call) => {
  const user = { name: 'Ann', tags: ['a', 'ß'], nested: { ok: true, none: null } };
  assert.equal((await call('POST', '/user/set/ann', JSON.stringify(user))).status, 200);
  const answer = await call('GET', '/user/get/ann');
  assert.equal(answer.status, 200);
  assert.equal(answer.type, 'application/json');
  assert.deepEqual(JSON.parse(answer.body), user);
  await call('POST', '/user/set/ann', '{"replaced":1}');
  assert.deepEqual(JSON.parse((await call('GET', '/user/get/ann')).body), { replaced: 1 });
  assert.equal((await call('GET', '/user/get/nobody')).status, 404);
  for (const body of ['[]', 'null', '42', '"x"', 'true', '', '{"a":']) {
    assert.equal((await call('POST', '/user/set/carl', body)).status, 400, body);
  }
});

serverTest('accepts a body of exactly 64 KiB and refuses one byte more', async (call) => {
  const body = (size: number) => `{"pad":"${'x'.repeat(size - 10)}"}`;
  assert.equal((await call('POST', '/user/set/big', body(BODY_LIMIT))).status, 200);
  assert.equal((await call('POST', '/user/set/big', body(BODY_LIMIT + 1))).status, 413);
  assert.equal((await call('POST', '/password/set/big', body(BODY_LIMIT + 1))).status, 413);
  assert.equal((await call('GET', '/user/get/big')).body, body(BODY_LIMIT));
});

serverTest('checks usernames after percent-decoding', async (call) => {
  assert.equal((await call('GET', `/user/get/${'x'.repeat(64)}`)).status, 404);
  assert.equal((await call('POST', '/user/set/%61da', '{}')).status, 200);
  assert.equal((await call('GET', '/user/get/ada')).status, 200);
  for (const path of ['/user/get/bad%20name', `/user/get/${'x'.repeat(65)}`, '/user/get/a%2Fb']) {
    assert.equal((await call('GET', path)).status, 400, path);
  }
});

serverTest('routes: unknown paths 404, wrong methods 405 with Allow', async (call) => {
  for (const path of ['/nope', '/user/get/', '/user/get/a/b', '/HELLO', '/hello/', '/longpoll']) {
    assert.deepEqual(await call('GET', path), {
      status: 404,
      type: 'text/plain; charset=utf-8',
      allow: null,
      body: 'not found',
    }, path);
  }
  const cases = [
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
    const answer = await call(method, path);
    assert.equal(answer.status, 405, `${method} ${path}`);
    assert.equal(answer.allow, allow);
  }
  assert.deepEqual(await call('HEAD', '/'), { ...await call('GET', '/'), body: '' });
});

serverTest('long-polls without holding other requests', async (call) => {
  const [answers, ms] = await timed(() =>
    Promise.all(Array.from({ length: 20 }, () => call('GET', '/longPoll')))
  );
  assert.ok(answers.every((a) => a.status === 200 && a.body === 'OK'));
  assert.ok(ms >= 190 && ms < 1000, `${ms} ms`);
});

serverTest('sorts and answers the checksum', async (call) => {
  const answer = await call('GET', '/long-operation?n=1000');
  assert.equal(answer.type, 'application/json');
  assert.equal(answer.body, '{"message":"done","n":1000,"checksum":169238.799942987}');
  assert.deepEqual(JSON.parse((await call('GET', '/long-operation')).body), {
    message: 'done',
    n: 10,
    checksum: 10.676268897597582,
  });
  for (const n of ['0', '200001', '-1', 'abc', '1.5', '', '%2B5']) {
    assert.equal((await call('GET', `/long-operation?n=${n}`)).status, 400, n);
  }
});
