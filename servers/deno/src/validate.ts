import { MAX_SORT_N } from "./config.ts";

const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** bcrypt only looks at the first 72 bytes; longer passwords are refused, not truncated. */
export const MAX_PASSWORD_BYTES = 72;

const encoder = new TextEncoder();

/** The username of a path segment, percent-decoded, or undefined when it is not a valid one. */
export function usernameOf(segment: string): string | undefined {
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return USERNAME.test(name) ? name : undefined;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The password of a `{"password": s}` body, or undefined when the body is not one. */
export function passwordOf(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const { password } = body;
  if (typeof password !== "string") return undefined;
  return encoder.encode(password).length <= MAX_PASSWORD_BYTES ? password : undefined;
}

/**
 * The `n` of /long-operation: decimal digits only (leading zeros allowed), 1..MAX_SORT_N.
 * No `n` takes the fallback; any other invalid one (repeated, signed, fractional) is undefined.
 */
export function sortSizeOf(params: URLSearchParams, fallback: number): number | undefined {
  const values = params.getAll("n");
  if (values.length === 0) return fallback;
  if (values.length > 1 || !/^[0-9]+$/.test(values[0])) return undefined;
  const n = Number(values[0]);
  return n >= 1 && n <= MAX_SORT_N ? n : undefined;
}
