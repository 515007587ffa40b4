// main.js's options: --processes=single serves from one process whatever ARENA_CPUS is
// (express-single, http-single), and a bad option stops the start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { request, timed } from './http.ts';
import { exitOf, failedStart, start } from './process.ts';

for (const server of ['express', 'http']) {
  test(`${server}: --processes=single on 2 cores is one process with the whole store, counter and pool`, async () => {
    // A pool of one connection is enough for one process; two workers would refuse it.
    const env = { ARENA_CPUS: '2', ARENA_DB_POOL: '1', ARENA_HELLO_DELAY_EVERY: '3', ARENA_HELLO_DELAY_MS: '300' };
    const listening = new RegExp(`^node ${server}-single: listening on 127\\.0\\.0\\.1:\\d+ with 1 process$`);
    const { child, base } = await start([`--server=${server}`, '--processes=single'], env, listening);
    try {
      // No worker forked: pgrep finds no child, and says so with status 1.
      assert.equal(spawnSync('pgrep', ['-P', String(child.pid)]).status, 1);
      for (let i = 0; i < 10; i++) {
        assert.equal((await request(base, `/user/set/single${i}`, { body: JSON.stringify({ i }) })).status, 200);
      }
      for (let i = 0; i < 10; i++) {
        assert.deepEqual(JSON.parse((await request(base, `/user/get/single${i}`)).body), { i });
      }
      assert.equal((await request(base, '/password/set/solo', { body: '{"password":"pw"}' })).status, 200);
      assert.equal((await request(base, '/password/verify/solo', { body: '{"password":"pw"}' })).status, 200);
      const delays: number[] = [];
      for (let i = 0; i < 6; i++) delays.push((await timed(() => request(base, '/hello')))[1]);
      assert.deepEqual(delays.map((ms) => ms >= 250), [false, false, true, false, false, true]);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exitOf(child), 0);
  });
}

test('a bad option exits with status 2 and a one-line message', async () => {
  const cases: [string[], RegExp][] = [
    [['--server=koa'], /--server=koa is not express or http/],
    [['--processes=threads'], /--processes=threads is not cluster or single/],
    [['--cores=2'], /Unknown option '--cores'/],
    [['single'], /Unexpected argument 'single'/],
    [['--server'], /--server <value>' argument missing/],
  ];
  for (const [args, message] of cases) {
    const [code, stderr] = await failedStart(args, {});
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, message);
    const usage = /\(usage: main\.js \[--server=express\|http\] \[--processes=cluster\|single\]\)/;
    assert.match(stderr, new RegExp(`^node: [^\\n]*${usage.source}\\n$`));
  }
});
