import { expect, test } from 'bun:test';
import { isJsonObject, isValidUsername, passwordOf, sortSizeOf } from '../src/validate.ts';

test('usernames: 1..64 of [A-Za-z0-9_.-]', () => {
  for (const ok of ['a', 'user000001', 'A.b-c_d', 'x'.repeat(64)]) expect(isValidUsername(ok)).toBe(true);
  for (const bad of ['', 'x'.repeat(65), 'bad name', 'a/b', 'é', 'a\n', '\uFFFD']) {
    expect(isValidUsername(bad)).toBe(false);
  }
});

test('JSON objects exclude arrays, null and scalars', () => {
  expect(isJsonObject({})).toBe(true);
  for (const bad of [[], null, 1, 'x', true]) expect(isJsonObject(bad)).toBe(false);
});

test('passwords: a string of at most 72 UTF-8 bytes', () => {
  expect(passwordOf({ password: 'secret' })).toBe('secret');
  expect(passwordOf({ password: '' })).toBe('');
  expect(passwordOf({ password: '€'.repeat(24) })).toBe('€'.repeat(24));
  expect(passwordOf({ password: '€'.repeat(24) + 'a' })).toBeUndefined();
  expect(passwordOf({ password: 'a'.repeat(73) })).toBeUndefined();
  for (const bad of [{}, { password: 1 }, { password: null }, ['secret'], 'secret', null]) {
    expect(passwordOf(bad)).toBeUndefined();
  }
});

test('n: one value of decimal digits in 1..200000, none takes the fallback', () => {
  expect(sortSizeOf([], 50000)).toBe(50000);
  expect(sortSizeOf(['1'], 5)).toBe(1);
  expect(sortSizeOf(['007'], 5)).toBe(7);
  expect(sortSizeOf(['200000'], 5)).toBe(200000);
  for (const bad of ['', '0', '200001', 'abc', '-1', '+1', '1.5', '1e3', ' 1', '99999999999999999999999']) {
    expect(sortSizeOf([bad], 5)).toBeUndefined();
  }
  expect(sortSizeOf(['1', '2'], 5)).toBeUndefined();
});
