// The real entry point as the harness starts it: settings, port, signals.
import { expect, test } from 'bun:test';
import { join } from 'node:path';

const MAIN = join(import.meta.dir, '../src/main.ts');

function start(env: Record<string, string>) {
  return Bun.spawn([process.execPath, MAIN], {
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
}

/** Waits for the start-up line and returns it. */
async function listening(server: ReturnType<typeof start>): Promise<string> {
  const reader = server.stdout.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return new TextDecoder().decode(value);
}

function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

test.each([
  ['ARENA_PORT', 'eighty'],
  ['ARENA_DB_POOL', '0'],
  ['ARENA_DB_URL', 'http://127.0.0.1/arena'],
])('a malformed setting (%s=%s) exits with status 2 and a message', async (name, value) => {
  const server = start({ [name]: value });
  expect(await server.exited).toBe(2);
  expect(await new Response(server.stderr).text()).toContain(name);
});

test('serves, refuses a second server on its port, and exits 0 on SIGTERM', async () => {
  const port = String(freePort());
  const server = start({ ARENA_PORT: port, ARENA_CPUS: '2' });
  try {
    expect(await listening(server)).toContain(`listening on 127.0.0.1:${port}`);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('OK');
    const second = start({ ARENA_PORT: port });
    expect(await second.exited).toBe(1);
    expect(await new Response(second.stderr).text()).toContain('cannot listen');
  } finally {
    server.kill('SIGTERM');
  }
  expect(await server.exited).toBe(0);
});
