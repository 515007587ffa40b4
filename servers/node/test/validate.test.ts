import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonObject, isValidUsername, passwordOf, sortSizeOf } from '../src/validate.js';

test('usernames: 1..64 of [A-Za-z0-9_.-]', () => {
  for (const ok of ['a', 'user000001', 'A.b-c_d', 'x'.repeat(64)]) assert.ok(isValidUsername(ok), ok);
  for (const bad of ['', 'x'.repeat(65), 'bad name', 'a/b', 'é', 'a\n']) assert.ok(!isValidUsername(bad), bad);
});

test('JSON objects exclude arrays, null and scalars', () => {
  assert.ok(isJsonObject({}));
  for (const bad of [[], null, 1, 'x', true]) assert.ok(!isJsonObject(bad));
});

test('passwords: a string of at most 72 UTF-8 bytes', () => {
  assert.equal(passwordOf({ password: 'secret' }), 'secret');
  assert.equal(passwordOf({ password: '' }), '');
  assert.equal(passwordOf({ password: 'é'.repeat(36) }), 'é'.repeat(36));
  assert.equal(passwordOf({ password: 'é'.repeat(36) + 'a' }), undefined);
  assert.equal(passwordOf({ password: 'a'.repeat(73) }), undefined);
  for (const bad of [{}, { password: 1 }, { password: null }, ['secret'], 'secret', null]) {
    assert.equal(passwordOf(bad), undefined);
  }
});

test('n: decimal digits in 1..200000, missing takes the fallback', () => {
  assert.equal(sortSizeOf(undefined, 50000), 50000);
  assert.equal(sortSizeOf('1', 5), 1);
  assert.equal(sortSizeOf('007', 5), 7);
  assert.equal(sortSizeOf('200000', 5), 200000);
  for (const bad of ['', '0', '200001', 'abc', '-1', '+1', '1.5', '1e3', ' 1', ['1', '2']]) {
    assert.equal(sortSizeOf(bad, 5), undefined, String(bad));
  }
});
