import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../lib-ts/config.ts';
import { serve } from './app.ts';
import { bunRecords, createSql } from './records.ts';

async function startUp() {
  try {
    const config = loadConfig((name) => process.env[name]);
    // ARENA_DATA_DIR is relative to the working directory: the harness starts us in servers/bun/.
    return { config, helloHtml: await Bun.file(resolve(config.dataDir, 'hello.html')).bytes() };
  } catch (err) {
    console.error(`bun: ${(err as Error).message}`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
}

const { config, helloHtml } = await startUp();
// One process: its pool is the whole ARENA_DB_POOL.
const records = config.dbUrl === undefined ? undefined : bunRecords(createSql(config.dbUrl, config.dbPool));
try {
  const server = serve(config, helloHtml, records);
  console.log(`bun: listening on ${server.hostname}:${server.port} with 1 JS thread (ARENA_CPUS=${config.cpus})`);
} catch (err) {
  console.error(`bun: cannot listen: ${(err as Error).message}`);
  process.exit(1);
}

// Nothing to flush: the stores live in memory and die with the process anyway.
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
