import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MapStore, ShardedStore, fnv1a, type StoreOp } from '../src/store.ts';

test('fnv1a matches the published 32-bit FNV-1a vectors', () => {
  assert.equal(fnv1a(''), 0x811c9dc5);
  assert.equal(fnv1a('a'), 0xe40c292c);
  assert.equal(fnv1a('foobar'), 0xbf9cf968);
});

test('MapStore sets, replaces and gets', async () => {
  const store = new MapStore();
  assert.equal(await store.get('k'), undefined);
  await store.set('k', 'v1');
  await store.set('k', 'v2');
  assert.equal(await store.get('k'), 'v2');
});

test('ShardedStore keeps its own shard locally and sends the others to their owner', async () => {
  const shards = 3;
  const maps = Array.from({ length: shards }, () => new Map<string, string>());
  const calls: [number, StoreOp][] = [];
  const store = new ShardedStore(0, shards, maps[0], async (shard, op) => {
    calls.push([shard, op]);
    if (op.op === 'set') maps[shard].set(op.key, op.value);
    return op.op === 'get' ? maps[shard].get(op.key) : undefined;
  });
  const keys = Array.from({ length: 30 }, (_, i) => `user:user${i}`);
  for (const key of keys) await store.set(key, `v-${key}`);
  for (const key of keys) {
    const shard = fnv1a(key) % shards;
    assert.equal(store.shardOf(key), shard);
    assert.equal(maps[shard].get(key), `v-${key}`);
    assert.equal(await store.get(key), `v-${key}`);
  }
  assert.ok(calls.length > 0 && calls.every(([shard]) => shard !== 0));
  assert.equal(calls.length, 2 * keys.filter((key) => fnv1a(key) % shards !== 0).length);
});
