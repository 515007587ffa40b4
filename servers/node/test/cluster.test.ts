// The real entry point with ARENA_CPUS=2: a primary and two workers sharing the store, under
// either HTTP layer (express-cluster, http-cluster).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { raw, request, timed } from './http.ts';
import { exitOf, failedStart, start } from './process.ts';

const startCluster = (server: string, env: Record<string, string>) =>
  start(
    [`--server=${server}`],
    { ARENA_CPUS: '2', ...env },
    new RegExp(`^node ${server}-cluster: listening on 127\\.0\\.0\\.1:\\d+ with 2 workers$`),
  );

for (const server of ['express', 'http']) {
  test(`${server}: two workers share one store and one /hello counter; SIGTERM exits 0`, async () => {
    const { child, base } = await startCluster(server, { ARENA_HELLO_DELAY_EVERY: '3', ARENA_HELLO_DELAY_MS: '300' });
    try {
      const users = Array.from({ length: 30 }, (_, i) => `user${String(i).padStart(6, '0')}`);
      for (const user of users) {
        assert.equal((await request(base, `/user/set/${user}`, { body: JSON.stringify({ user }) })).status, 200);
        assert.equal((await request(base, `/password/set/${user}`, { body: `{"password":"pw-${user}"}` })).status, 200);
      }
      for (const user of users) {
        const answer = await request(base, `/user/get/${user}`);
        assert.equal(answer.status, 200, user);
        assert.deepEqual(JSON.parse(answer.body), { user });
        assert.equal((await request(base, `/password/verify/${user}`, { body: `{"password":"pw-${user}"}` })).status, 200);
        assert.equal((await request(base, `/password/verify/${user}`, { body: '{"password":"no"}' })).status, 403);
      }
      assert.equal((await request(base, '/user/get/nobody')).status, 404);

      const delays: number[] = [];
      for (let i = 0; i < 6; i++) delays.push((await timed(() => request(base, '/hello')))[1]);
      assert.deepEqual(delays.map((ms) => ms >= 250), [false, false, true, false, false, true]);
    } finally {
      child.kill('SIGTERM');
    }
    const [code, ms] = await timed(() => exitOf(child));
    assert.equal(code, 0);
    assert.ok(ms < 2000, `${ms} ms`);
  });

  // A key of the other worker's shard is answered only after a round trip through the primary:
  // a client that half-closed meanwhile (`nc -N`, some proxies) must still get its answer.
  test(`${server}: a client that half-closes after its request still gets the answer`, async () => {
    const { child, base } = await startCluster(server, {});
    try {
      for (let i = 0; i < 20; i++) {
        const body = '{"half":"closed"}';
        const head = `POST /user/set/half${i} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json`;
        const answer = await raw(base, `${head}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        assert.match(answer, /^HTTP\/1\.1 200 /, `half${i}`);
      }
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });
}

test('the primary exits non-zero when a worker dies', async () => {
  const { child } = await startCluster('express', {});
  const workers = execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n');
  assert.equal(workers.length, 2);
  process.kill(Number(workers[0]), 'SIGKILL');
  assert.equal(await exitOf(child), 1);
});

test('a malformed setting exits with status 2 and a message naming it', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ ARENA_PORT: 'eighty' }, /ARENA_PORT/],
    [{ ARENA_DB_POOL: '0' }, /ARENA_DB_POOL/],
    // Two workers cannot share one connection: each would get none.
    [{ ARENA_CPUS: '2', ARENA_DB_POOL: '1' }, /ARENA_DB_POOL=1 is fewer than the 2 processes/],
  ];
  for (const [env, message] of cases) {
    const [code, stderr] = await failedStart([], env);
    assert.equal(code, 2, JSON.stringify(env));
    assert.match(stderr, message);
  }
});
