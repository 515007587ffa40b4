import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bubbleSortDescending, checksum, lcgArray, longOperation } from '../src/sort.js';

test('checksums match the contract reference values', () => {
  assert.equal(longOperation(1), 0.5682303266439076);
  assert.equal(longOperation(10), 10.676268897597582);
  assert.equal(longOperation(1000), 169238.799942987);
});

test('the LCG yields values in [0, 1) and the sort orders them descending', () => {
  const a = lcgArray(500);
  assert.ok(a.every((x) => x >= 0 && x < 1));
  bubbleSortDescending(a);
  for (let i = 1; i < a.length; i++) assert.ok(a[i - 1] >= a[i]);
});

test('checksum weights by 1-based index', () => {
  assert.equal(checksum(Float64Array.of(0.5, 0.25)), 0.5 + 2 * 0.25);
});
