// bcrypt through Bun.password: the hashing runs on Bun's thread pool, off the JS thread,
// so the event loop keeps serving while a hash is computed.

// Bun.password refuses an empty password. bcrypt keys on the password's bytes plus a NUL,
// cycled to 72 bytes, so "" and "\0" make the same key: hashing "\0" gives the standard
// bcrypt hash of "", which any other bcrypt library verifies.
const keyOf = (password: string) => (password === '' ? '\0' : password);

export function hashPassword(password: string, cost: number): Promise<string> {
  return Bun.password.hash(keyOf(password), { algorithm: 'bcrypt', cost });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(keyOf(password), hash, 'bcrypt');
}
