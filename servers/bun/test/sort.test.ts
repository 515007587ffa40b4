import { expect, test } from 'bun:test';
import { bubbleSortDescending, checksum, lcgArray, longOperation } from '../src/sort.ts';

test('checksums match the contract reference values', () => {
  expect(longOperation(1)).toBe(0.5682303266439076);
  expect(longOperation(10)).toBe(10.676268897597582);
  expect(longOperation(1000)).toBe(169238.799942987);
});

test('the LCG yields values in [0, 1) and the sort orders them descending', () => {
  const a = lcgArray(500);
  expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  bubbleSortDescending(a);
  for (let i = 1; i < a.length; i++) expect(a[i - 1]).toBeGreaterThanOrEqual(a[i]);
});

test('checksum weights by 1-based index', () => {
  expect(checksum(Float64Array.of(0.5, 0.25))).toBe(0.5 + 2 * 0.25);
});
