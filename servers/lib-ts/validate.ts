// The contract's input rules (spec/README.md, "Errors"), the same for every TypeScript runtime.

const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** bcrypt only looks at the first 72 bytes; longer passwords are refused, not truncated. */
export const MAX_PASSWORD_BYTES = 72;
export const MAX_SORT_N = 200_000;

const encoder = new TextEncoder();

/** Whether an already percent-decoded `{username}` (or /record name: the same rule) is valid. */
export function isValidUsername(name: string): boolean {
  return USERNAME.test(name);
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The password of a `{"password": s}` body, or undefined when the body is not one. */
export function passwordOf(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const password = body.password;
  if (typeof password !== 'string') return undefined;
  return encoder.encode(password).length <= MAX_PASSWORD_BYTES ? password : undefined;
}

/**
 * The `n` of /long-operation from all its values in the query: decimal digits only (leading
 * zeros allowed), 1..MAX_SORT_N. None takes the fallback; anything else invalid (repeated,
 * signed, fractional) is undefined.
 */
export function sortSizeOf(values: readonly string[], fallback: number): number | undefined {
  if (values.length === 0) return fallback;
  if (values.length > 1 || !/^[0-9]+$/.test(values[0])) return undefined;
  const n = Number(values[0]);
  return n >= 1 && n <= MAX_SORT_N ? n : undefined;
}
