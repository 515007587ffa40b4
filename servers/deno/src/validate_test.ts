import assert from "node:assert/strict";
import { passwordOf, sortSizeOf, usernameOf } from "./validate.ts";

Deno.test("usernames are checked after percent-decoding", () => {
  assert.equal(usernameOf("alice"), "alice");
  assert.equal(usernameOf("A.b-c_9"), "A.b-c_9");
  assert.equal(usernameOf("%61lice"), "alice");
  assert.equal(usernameOf("x".repeat(64)), "x".repeat(64));
  for (const bad of ["", "x".repeat(65), "bad%20name", "a%2Fb", "semi%3Bcolon", "%zz", "%C3%A9"]) {
    assert.equal(usernameOf(bad), undefined, bad);
  }
});

Deno.test("a password is a string of at most 72 UTF-8 bytes in an object", () => {
  assert.equal(passwordOf({ password: "secret" }), "secret");
  assert.equal(passwordOf({ password: "€".repeat(24) }), "€".repeat(24));
  assert.equal(passwordOf({ password: "€".repeat(25) }), undefined);
  assert.equal(passwordOf({ password: "a".repeat(73) }), undefined);
  for (const bad of [null, [], "pw", 1, {}, { password: 1 }, { password: null }]) {
    assert.equal(passwordOf(bad), undefined, JSON.stringify(bad));
  }
});

Deno.test("n is decimal digits in 1..200000, else undefined; none takes the default", () => {
  const n = (query: string) => sortSizeOf(new URLSearchParams(query), 300);
  assert.equal(n(""), 300);
  assert.equal(n("n=1"), 1);
  assert.equal(n("n=0777"), 777);
  assert.equal(n("n=200000"), 200000);
  for (
    const bad of ["n=", "n=0", "n=200001", "n=-1", "n=%2B5", "n=1.5", "n=1e3", "n=abc", "n=1&n=2"]
  ) {
    assert.equal(n(bad), undefined, bad);
  }
  assert.equal(n("n=99999999999999999999999"), undefined);
});
