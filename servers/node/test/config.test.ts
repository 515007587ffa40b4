import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults follow the contract', () => {
  assert.deepEqual(loadConfig({}), {
    host: '127.0.0.1',
    port: 8080,
    cpus: 1,
    bcryptCost: 10,
    longPollMs: 5000,
    helloDelayMs: 2000,
    helloDelayEvery: 10,
    sortN: 50000,
    dataDir: resolve('../../spec/data'),
  });
});

test('set variables are read', () => {
  const config = loadConfig({
    ARENA_HOST: '::1',
    ARENA_PORT: '18081',
    ARENA_CPUS: '4',
    ARENA_BCRYPT_COST: '04',
    ARENA_LONGPOLL_MS: '0',
    ARENA_HELLO_DELAY_MS: '0',
    ARENA_HELLO_DELAY_EVERY: '1',
    ARENA_SORT_N: '200000',
    ARENA_DATA_DIR: '/tmp',
  });
  assert.equal(config.host, '::1');
  assert.equal(config.port, 18081);
  assert.equal(config.cpus, 4);
  assert.equal(config.bcryptCost, 4);
  assert.equal(config.longPollMs, 0);
  assert.equal(config.helloDelayEvery, 1);
  assert.equal(config.sortN, 200000);
  assert.equal(config.dataDir, '/tmp');
});

test('malformed or out-of-range values are refused', () => {
  const bad: Record<string, string>[] = [
    { ARENA_PORT: 'abc' },
    { ARENA_PORT: '0' },
    { ARENA_PORT: '65536' },
    { ARENA_PORT: '80.5' },
    { ARENA_PORT: '' },
    { ARENA_CPUS: '0' },
    { ARENA_BCRYPT_COST: '3' },
    { ARENA_BCRYPT_COST: '32' },
    { ARENA_LONGPOLL_MS: '-1' },
    { ARENA_LONGPOLL_MS: '2147483648' },
    { ARENA_HELLO_DELAY_EVERY: '0' },
    { ARENA_SORT_N: '200001' },
    { ARENA_HOST: '' },
  ];
  for (const env of bad) assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
});
