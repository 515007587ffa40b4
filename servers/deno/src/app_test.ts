import assert from 'node:assert/strict';
import { pgPool, pgRecords, type Records } from '../../lib-ts/record.ts';
import { createHandler } from './app.ts';
import { BODY_LIMIT } from './http.ts';
import pg from 'pg';

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

/**
 * Runs `body` against a fresh server on a free port, then shuts the server down; the record
 * table is the one of `records()`, none by default.
 */
function serverTest(
  name: string,
  body: (call: Call) => Promise<void>,
  { records = () => undefined, ignore = false }: {
    records?: () => Records | undefined;
    ignore?: boolean;
  } = {},
): void {
  Deno.test({ name, ignore }, async () => {
    const server = Deno.serve(
      { hostname: '127.0.0.1', port: 0, onListen() {} },
      createHandler(config, HELLO, records()),
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
    ['PATCH', '/record', 'GET, HEAD, PUT, POST, DELETE'],
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

serverTest(
  '/record: checks requests before the database, and answers 503 without one',
  async (call) => {
    for (
      const path of ['/record', '/record?name=', '/record?name=bad%20name', '/record?name=a&name=b']
    ) {
      assert.equal((await call('GET', path)).status, 400, path);
      assert.equal((await call('DELETE', path)).status, 400, path);
    }
    for (
      const body of [
        '',
        '[]',
        '{"name":"n"}',
        '{"name":"n","value":1}',
        '{"name":"a b","value":""}',
      ]
    ) {
      assert.equal((await call('PUT', '/record', body)).status, 400, body);
      assert.equal((await call('POST', '/record', body)).status, 400, body);
    }
    const big = JSON.stringify({ name: 'n', value: 'v'.repeat(BODY_LIMIT) });
    assert.equal((await call('PUT', '/record', big)).status, 413);
    for (
      const answer of [
        await call('GET', '/record?name=r1'),
        await call('POST', '/record', '{"name":"r1","value":"v"}'),
      ]
    ) {
      assert.deepEqual([answer.status, answer.type], [503, 'text/plain; charset=utf-8']);
      assert.match(answer.body, /ARENA_DB_URL/);
    }
  },
);

// Nothing listens on the port of a listener just closed: the database is unreachable.
const unreachable = pgPool(
  pg.Pool,
  `postgresql://arena:arena@127.0.0.1:${freePort()}/arena`,
  1,
  'deno',
);

serverTest(
  '/record: an unreachable database is a 503 in time, the rest keeps serving',
  async (call) => {
    try {
      const [answer, ms] = await timed(() => call('GET', '/record?name=r1'));
      assert.deepEqual([answer.status, answer.body], [503, 'database unavailable']);
      assert.ok(ms < 3000, `${ms} ms`);
      assert.equal((await call('GET', '/')).status, 200);
    } finally {
      await unreachable.end();
    }
  },
  { records: () => pgRecords(unreachable) },
);

// `arena test deno` runs these on a throw-away database with the contract's record table; they
// are ignored without one.
const DB_URL = Deno.env.get('ARENA_DB_URL');
const POOL = 2;
const pool = DB_URL === undefined ? undefined : pgPool(pg.Pool, DB_URL, POOL, 'deno');
const onDatabase = { records: () => pgRecords(pool!), ignore: pool === undefined };
// Unique to this run, so that a record left by an interrupted one does not get in the way.
const recordName = (label: string) => `deno-test.${label}.${Deno.pid}`;
const recordPath = (name: string) => `/record?name=${encodeURIComponent(name)}`;

serverTest(
  '/record on the ARENA_DB_URL database: creates, reads, updates and deletes',
  async (call) => {
    const record = { name: recordName('crud'), value: "ünï x' OR '1'='1" };
    const created = await call('PUT', '/record', JSON.stringify({ ...record, ignored: true }));
    assert.deepEqual([created.status, created.type], [201, 'application/json']);
    assert.deepEqual(JSON.parse(created.body), record);
    assert.equal(
      (await call('PUT', '/record', JSON.stringify({ ...record, value: 'x' }))).status,
      409,
    );
    assert.deepEqual(JSON.parse((await call('GET', recordPath(record.name))).body), record);
    const updated = { ...record, value: '' };
    assert.deepEqual(
      JSON.parse((await call('POST', '/record', JSON.stringify(updated))).body),
      updated,
    );
    assert.deepEqual(JSON.parse((await call('DELETE', recordPath(record.name))).body), updated);
    assert.equal((await call('DELETE', recordPath(record.name))).status, 404);
    assert.equal((await call('POST', '/record', JSON.stringify(updated))).status, 404);
    assert.equal((await call('GET', recordPath(record.name))).status, 404);
  },
  onDatabase,
);

serverTest(
  '/record on the ARENA_DB_URL database: one create of many at once, within the pool',
  async (call) => {
    try {
      const body = JSON.stringify({ name: recordName('race'), value: 'v' });
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => call('PUT', '/record', body)),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, ...Array(11).fill(409)]);
      assert.ok(pool!.totalCount <= POOL, `${pool!.totalCount} connections`);
      assert.equal((await call('DELETE', recordPath(recordName('race')))).status, 200);
    } finally {
      // The last test of the pool: Deno's sanitizers want its sockets closed.
      await pool!.end();
    }
  },
  onDatabase,
);

function freePort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  listener.close();
  return listener.addr.port;
}
