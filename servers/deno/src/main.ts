import { resolve } from 'node:path';
import { type Config, loadConfig } from '../../lib-ts/config.ts';
import { pgPool, pgRecords } from '../../lib-ts/record.ts';
import { createHandler } from './app.ts';
import pg from 'pg';

function startUp(): { config: Config; helloHtml: Uint8Array<ArrayBuffer> } {
  try {
    const config = loadConfig((name) => Deno.env.get(name));
    // ARENA_DATA_DIR is relative to the working directory: the harness starts us in servers/deno/.
    return { config, helloHtml: Deno.readFileSync(resolve(config.dataDir, 'hello.html')) };
  } catch (err) {
    console.error(`deno: ${err instanceof Error ? err.message : err}`);
    Deno.exit(2);
  }
}

const { config, helloHtml } = startUp();
if (config.cpus > 1) {
  console.error(`deno: ARENA_CPUS=${config.cpus}, but one event loop serves on one core`);
}

// One process: its pool is the whole ARENA_DB_POOL.
const records = config.dbUrl === undefined
  ? undefined
  : pgRecords(pgPool(pg.Pool, config.dbUrl, config.dbPool, 'deno'));

// The store lives only in memory and no answer is worth finishing late: stop at once.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, () => Deno.exit(0));
}

try {
  Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: ({ hostname, port }) => console.log(`deno: listening on ${hostname}:${port}`),
  }, createHandler(config, helloHtml, records));
} catch (err) {
  console.error(`deno: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  Deno.exit(1);
}
