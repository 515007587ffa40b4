import assert from "node:assert/strict";
import { bubbleSortDescending, checksum, lcgArray, longOperation } from "./sort.ts";

Deno.test("checksums equal the contract's reference values", () => {
  assert.equal(longOperation(1), 0.5682303266439076);
  assert.equal(longOperation(10), 10.676268897597582);
  assert.equal(longOperation(1000), 169238.799942987);
});

Deno.test("the LCG starts from x = 42 and stays in [0, 1)", () => {
  const a = lcgArray(1000);
  assert.equal(a[0], 0.5682303266439076);
  assert.ok(a.every((x) => x >= 0 && x < 1));
});

Deno.test("the bubble sort sorts descending", () => {
  const a = lcgArray(500);
  const expected = Float64Array.from(a).sort().reverse();
  bubbleSortDescending(a);
  assert.deepEqual(a, expected);
});

Deno.test("the checksum weights each value by its 1-based index", () => {
  assert.equal(checksum(Float64Array.of(0.5, 0.25)), 0.5 + 2 * 0.25);
});
