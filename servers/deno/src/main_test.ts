import assert from 'node:assert/strict';

const MAIN = new URL('./main.ts', import.meta.url).pathname;
const DATA_DIR = new URL('../../../spec/data', import.meta.url).pathname;

/** The server as the harness starts it, with the manifest's permissions. */
function start(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ['run', '--allow-net', '--allow-env=ARENA_*,PG*', '--allow-read', MAIN],
    env: { ARENA_DATA_DIR: DATA_DIR, ...env },
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
}

function freePort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  listener.close();
  return listener.addr.port;
}

Deno.test('a malformed ARENA_* value stops the start with status 2 and a message', async () => {
  const malformed: Record<string, string>[] = [
    { ARENA_PORT: 'http' },
    { ARENA_BCRYPT_COST: '99' },
    { ARENA_CPUS: '0' },
  ];
  for (const env of malformed) {
    const { code, stderr } = await start(env).output();
    assert.equal(code, 2, JSON.stringify(env));
    assert.match(new TextDecoder().decode(stderr), /^deno: ARENA_/);
  }
});

Deno.test('serves, then stops with status 0 on SIGTERM', async () => {
  const port = freePort();
  const server = start({ ARENA_PORT: String(port) });
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.match((await lines.read()).value ?? '', /listening on 127\.0\.0\.1:\d+/);
  const res = await fetch(`http://127.0.0.1:${port}/hello`);
  assert.equal((await res.text()).length, 174);
  server.kill('SIGTERM');
  assert.equal((await server.status).code, 0);
  await lines.cancel();
  await server.stderr.cancel();
});
