import { expect, test } from 'bun:test';
import { hashPassword, verifyPassword } from '../src/password.ts';

test('hashes with bcrypt at the given cost and verifies', async () => {
  const hash = await hashPassword('sécret', 5);
  expect(hash).toMatch(/^\$2b\$05\$/);
  expect(await verifyPassword('sécret', hash)).toBe(true);
  expect(await verifyPassword('secret', hash)).toBe(false);
});

test('an empty password hashes as standard bcrypt does', async () => {
  const hash = await hashPassword('', 4);
  expect(await verifyPassword('', hash)).toBe(true);
  expect(await verifyPassword('a', hash)).toBe(false);
  // bcrypt of "" made by another library (bcryptjs 3.0.3).
  const foreign = '$2b$04$5yCUEGUOYKJseOuc9nv0AOwKxQDVfIw4LjiUzgUQabmzAe3r5HSQi';
  expect(await verifyPassword('', foreign)).toBe(true);
  expect(await verifyPassword('a', foreign)).toBe(false);
});
