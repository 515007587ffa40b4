// The real entry point, started as the harness starts it, for the tests of its setups.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './http.ts';

export const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

/**
 * Starts main.js with `args` and `env` (bcrypt at its cheapest), and waits for its line saying it
 * listens, which must match `listening`.
 */
export async function start(
  args: string[],
  env: Record<string, string>,
  listening: RegExp,
): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ARENA_PORT: String(port), ARENA_BCRYPT_COST: '4', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  assert.match(line, listening);
  return { child, base: `http://127.0.0.1:${port}` };
}

export async function exitOf(child: ChildProcess): Promise<number | null> {
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

/** Runs main.js with `args` and `env` until it exits: its status and what it wrote to stderr. */
export async function failedStart(args: string[], env: Record<string, string>): Promise<[number | null, string]> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  return [await exitOf(child), stderr];
}
