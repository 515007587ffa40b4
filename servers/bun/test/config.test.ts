import { expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults follow the contract', () => {
  expect(loadConfig({})).toEqual({
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
  expect(config).toEqual({
    host: '::1',
    port: 18081,
    cpus: 4,
    bcryptCost: 4,
    longPollMs: 0,
    helloDelayMs: 0,
    helloDelayEvery: 1,
    sortN: 200000,
    dataDir: '/tmp',
  });
});

test.each([
  ['ARENA_PORT', 'abc'],
  ['ARENA_PORT', '0'],
  ['ARENA_PORT', '65536'],
  ['ARENA_PORT', '80.5'],
  ['ARENA_PORT', ''],
  ['ARENA_CPUS', '0'],
  ['ARENA_BCRYPT_COST', '3'],
  ['ARENA_BCRYPT_COST', '32'],
  ['ARENA_LONGPOLL_MS', '-1'],
  ['ARENA_LONGPOLL_MS', '2147483648'],
  ['ARENA_HELLO_DELAY_EVERY', '0'],
  ['ARENA_SORT_N', '200001'],
  ['ARENA_HOST', ''],
])('%s=%p is refused', (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
});
