// The shared contract helpers of servers/lib-ts, which node, deno and bun all import: tested once, here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig, poolShare } from '../../lib-ts/config.ts';
import {
  type DbRecord,
  type Records,
  createRecord,
  deleteRecord,
  readRecord,
  recordNameOf,
  recordOf,
  RECORD_SQL,
  sqlRecords,
  updateRecord,
} from '../../lib-ts/record.ts';
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
    dbUrl: undefined,
    dbPool: 8,
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
      ARENA_DB_URL: 'postgresql://arena:secret@127.0.0.1:5432/arena',
      ARENA_DB_POOL: '1000',
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
      dbUrl: 'postgresql://arena:secret@127.0.0.1:5432/arena',
      dbPool: 1000,
    },
  );
  assert.equal(from({ ARENA_DB_URL: 'postgres://h/db' }).dbUrl, 'postgres://h/db');
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
    { ARENA_DB_POOL: '0' },
    { ARENA_DB_POOL: '1001' },
    { ARENA_DB_POOL: 'many' },
    { ARENA_DB_URL: '' },
    { ARENA_DB_URL: '127.0.0.1:5432/arena' },
    { ARENA_DB_URL: 'mysql://u:p@127.0.0.1/arena' },
  ];
  for (const vars of bad) assert.throws(() => from(vars), ConfigError, JSON.stringify(vars));
});

test('config: the database URL is never repeated in a message, its password with it', () => {
  assert.throws(() => from({ ARENA_DB_URL: 'http://u:secret@h/db' }), (err: Error) => {
    assert.match(err.message, /^ARENA_DB_URL /);
    return !err.message.includes('secret');
  });
});

test('pool: each process gets ARENA_DB_POOL / processes, rounded down, and never none', () => {
  assert.equal(poolShare({ dbPool: 8 }, 1), 8);
  assert.equal(poolShare({ dbPool: 3 }, 2), 1);
  assert.equal(poolShare({ dbPool: 8 }, 3), 2);
  assert.equal(poolShare({ dbPool: 2 }, 2), 1);
  assert.throws(() => poolShare({ dbPool: 1 }, 2), /ARENA_DB_POOL=1 is fewer than the 2 /);
  assert.throws(() => poolShare({ dbPool: 3 }, 4), ConfigError);
});

test('records: a name of 1..64 of [A-Za-z0-9_.-] and a string value of at most 1024 UTF-8 bytes', () => {
  assert.deepEqual(recordOf({ name: 'a.b-c_9', value: 'v', other: 1 }), { name: 'a.b-c_9', value: 'v' });
  for (const value of ['', 'é'.repeat(512), 'x'.repeat(1024), "x' OR '1'='1"]) {
    assert.deepEqual(recordOf({ name: 'n', value }), { name: 'n', value });
  }
  const bad = [
    null, [], 'x', {}, { value: 'v' }, { name: 'n' }, { name: 'n', value: 5 }, { name: 'n', value: null },
    { name: 'n', value: ['v'] }, { name: 5, value: 'v' }, { name: '', value: 'v' }, { name: 'bad name', value: 'v' },
    { name: 'x'.repeat(65), value: 'v' }, { name: 'n', value: 'é'.repeat(512) + 'x' }, { name: 'n', value: 'nul\0' },
  ];
  for (const body of bad) assert.equal(recordOf(body), undefined, JSON.stringify(body));
});

test('records: exactly one valid name in the query', () => {
  assert.equal(recordNameOf(['r42']), 'r42');
  for (const values of [[], [''], ['bad name'], ['x'.repeat(65)], ['a', 'a'], ["x' OR '1'='1"]]) {
    assert.equal(recordNameOf(values), undefined, JSON.stringify(values));
  }
});

test('records: one statement of the contract for each call, with its parameters', async () => {
  const sent: [string, string[]][] = [];
  const rows: DbRecord[][] = [[{ name: 'n', value: 'v' }], []];
  const records = sqlRecords(async (sql, params) => {
    sent.push([sql, params]);
    return rows.shift() ?? [];
  });
  assert.deepEqual(await records.create({ name: 'n', value: 'v' }), { name: 'n', value: 'v' });
  assert.equal(await records.read('n'), undefined);
  await records.update({ name: 'n', value: 'w' });
  await records.remove('n');
  assert.deepEqual(sent, [
    [RECORD_SQL.create, ['n', 'v']],
    [RECORD_SQL.read, ['n']],
    [RECORD_SQL.update, ['n', 'w']],
    [RECORD_SQL.remove, ['n']],
  ]);
});

/** The record table in a Map, counting the statements it is asked to run. */
function mapRecords(): Records & { calls: number } {
  const map = new Map<string, string>();
  const answer = (name: string) => (map.has(name) ? { name, value: map.get(name)! } : undefined);
  const records = {
    calls: 0,
    async create({ name, value }: DbRecord) {
      records.calls++;
      if (map.has(name)) return undefined;
      map.set(name, value);
      return answer(name);
    },
    async read(name: string) {
      records.calls++;
      return answer(name);
    },
    async update({ name, value }: DbRecord) {
      records.calls++;
      if (!map.has(name)) return undefined;
      map.set(name, value);
      return answer(name);
    },
    async remove(name: string) {
      records.calls++;
      const found = answer(name);
      map.delete(name);
      return found;
    },
  };
  return records;
}

test('records: the answers of create, read, update and delete', async () => {
  const db = mapRecords();
  const record = { name: 'n', value: 'v' };
  assert.deepEqual(await createRecord(db, { ...record, extra: true }), { status: 201, record });
  assert.equal((await createRecord(db, { name: 'n', value: 'other' })).status, 409);
  assert.deepEqual(await readRecord(db, ['n']), { status: 200, record });
  const updated = { name: 'n', value: 'w' };
  assert.deepEqual(await updateRecord(db, updated), { status: 200, record: updated });
  assert.equal((await updateRecord(db, { name: 'none', value: 'w' })).status, 404);
  assert.deepEqual(await deleteRecord(db, ['n']), { status: 200, record: updated });
  assert.equal((await deleteRecord(db, ['n'])).status, 404);
  assert.equal((await readRecord(db, ['n'])).status, 404);
  assert.equal(db.calls, 8);
});

test('records: an invalid request is a 400 that asks no database', async () => {
  const db = mapRecords();
  for (const answer of [
    await createRecord(db, { name: 'bad name', value: 'v' }),
    await updateRecord(db, []),
    await readRecord(db, []),
    await deleteRecord(db, ['a', 'b']),
    await createRecord(undefined, { name: 'n', value: 5 }),
  ]) {
    assert.equal(answer.status, 400);
    assert.ok('message' in answer && answer.message.length > 0);
  }
  assert.equal(db.calls, 0);
});

test('records: no database, or a failing one, is a 503 with a short message', async () => {
  const failing = sqlRecords(async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  for (const answer of [
    await readRecord(undefined, ['n']),
    await createRecord(undefined, { name: 'n', value: 'v' }),
    await readRecord(failing, ['n']),
    await deleteRecord(failing, ['n']),
  ]) {
    assert.equal(answer.status, 503);
    assert.ok('message' in answer && !answer.message.includes('ECONNREFUSED'));
  }
});
