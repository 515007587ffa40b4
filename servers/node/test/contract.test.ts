// The shared contract helpers of servers/lib-ts, which node, deno and bun all import: tested once, here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib-ts/config.ts';
import { bubbleSortDescending, checksum, lcgArray, longOperation } from '../../lib-ts/sort.ts';
import { isJsonObject, isValidUsername, passwordOf, sortSizeOf } from '../../lib-ts/validate.ts';

test('checksums match the contract reference values', () => {
  assert.equal(longOperation(1), 0.5682303266439076);
  assert.equal(longOperation(10), 10.676268897597582);
  assert.equal(longOperation(1000), 169238.799942987);
});

test('the LCG starts from x = 42, stays in [0, 1), and the sort orders it descending', () => {
  const a = lcgArray(500);
  assert.equal(a[0], 0.5682303266439076);
  assert.ok(a.every((x) => x >= 0 && x < 1));
  const expected = Float64Array.from(a).sort().reverse();
  bubbleSortDescending(a);
  assert.deepEqual(a, expected);
});

test('checksum weights by 1-based index', () => {
  assert.equal(checksum(Float64Array.of(0.5, 0.25)), 0.5 + 2 * 0.25);
});

test('usernames: 1..64 of [A-Za-z0-9_.-]', () => {
  for (const ok of ['a', 'user000001', 'A.b-c_d', 'x'.repeat(64)]) assert.ok(isValidUsername(ok), ok);
  for (const bad of ['', 'x'.repeat(65), 'bad name', 'a/b', 'a;b', 'é', 'a\n', '\uFFFD']) {
    assert.ok(!isValidUsername(bad), bad);
  }
});

test('JSON objects exclude arrays, null and scalars', () => {
  assert.ok(isJsonObject({}));
  for (const bad of [[], null, 1, 'x', true]) assert.ok(!isJsonObject(bad));
});

test('passwords: a string of at most 72 UTF-8 bytes', () => {
  assert.equal(passwordOf({ password: 'secret' }), 'secret');
  assert.equal(passwordOf({ password: '' }), '');
  assert.equal(passwordOf({ password: 'é'.repeat(36) }), 'é'.repeat(36));
  assert.equal(passwordOf({ password: '€'.repeat(24) }), '€'.repeat(24));
  assert.equal(passwordOf({ password: 'é'.repeat(36) + 'a' }), undefined);
  assert.equal(passwordOf({ password: '€'.repeat(25) }), undefined);
  assert.equal(passwordOf({ password: 'a'.repeat(73) }), undefined);
  for (const bad of [{}, { password: 1 }, { password: null }, ['secret'], 'secret', 1, null]) {
    assert.equal(passwordOf(bad), undefined, JSON.stringify(bad));
  }
});

test('n: one value of decimal digits in 1..200000, none takes the fallback', () => {
  assert.equal(sortSizeOf([], 50000), 50000);
  assert.equal(sortSizeOf(['1'], 5), 1);
  assert.equal(sortSizeOf(['007'], 5), 7);
  assert.equal(sortSizeOf(['200000'], 5), 200000);
  const bad = ['', '0', '200001', 'abc', '-1', '+1', '1.5', '1e3', ' 1', '1 ', '99999999999999999999999'];
  for (const value of bad) assert.equal(sortSizeOf([value], 5), undefined, value);
  assert.equal(sortSizeOf(['1', '2'], 5), undefined);
  assert.equal(sortSizeOf(['7', '7'], 5), undefined);
});

const from = (vars: Record<string, string>) => loadConfig((name) => vars[name]);

test('config: unset variables take the contract defaults', () => {
  assert.deepEqual(from({}), {
    host: '127.0.0.1',
    port: 8080,
    cpus: 1,
    bcryptCost: 10,
    longPollMs: 5000,
    helloDelayMs: 2000,
    helloDelayEvery: 10,
    sortN: 50000,
    dataDir: '../../spec/data',
  });
});

test('config: set variables are read, ARENA_DATA_DIR as given', () => {
  assert.deepEqual(
    from({
      ARENA_HOST: '::1',
      ARENA_PORT: '18081',
      ARENA_CPUS: '4',
      ARENA_BCRYPT_COST: '04',
      ARENA_LONGPOLL_MS: '0',
      ARENA_HELLO_DELAY_MS: '0',
      ARENA_HELLO_DELAY_EVERY: '1',
      ARENA_SORT_N: '200000',
      ARENA_DATA_DIR: 'data',
    }),
    {
      host: '::1',
      port: 18081,
      cpus: 4,
      bcryptCost: 4,
      longPollMs: 0,
      helloDelayMs: 0,
      helloDelayEvery: 1,
      sortN: 200000,
      dataDir: 'data',
    },
  );
  const highest = from({ ARENA_PORT: '65535', ARENA_CPUS: '1024', ARENA_LONGPOLL_MS: '2147483647' });
  assert.deepEqual([highest.port, highest.cpus, highest.longPollMs], [65535, 1024, 2147483647]);
});

test('config: malformed or out-of-range values are refused, never replaced', () => {
  const bad: Record<string, string>[] = [
    { ARENA_PORT: 'abc' },
    { ARENA_PORT: '0' },
    { ARENA_PORT: '65536' },
    { ARENA_PORT: '80.5' },
    { ARENA_PORT: ' 80' },
    { ARENA_PORT: '' },
    { ARENA_CPUS: '0' },
    { ARENA_CPUS: '1025' },
    { ARENA_BCRYPT_COST: '3' },
    { ARENA_BCRYPT_COST: '32' },
    { ARENA_LONGPOLL_MS: '-1' },
    { ARENA_LONGPOLL_MS: '2147483648' },
    { ARENA_HELLO_DELAY_MS: '1e3' },
    { ARENA_HELLO_DELAY_EVERY: '0' },
    { ARENA_SORT_N: '0' },
    { ARENA_SORT_N: '200001' },
    { ARENA_HOST: '' },
    { ARENA_DATA_DIR: '' },
  ];
  for (const vars of bad) assert.throws(() => from(vars), ConfigError, JSON.stringify(vars));
});
