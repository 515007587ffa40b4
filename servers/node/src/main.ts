import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, poolShare, type Config } from '../../lib-ts/config.ts';
import { type Records, pgPool, pgRecords } from '../../lib-ts/record.ts';
import { createApp } from './app.ts';
import { runPrimary } from './primary.ts';
import pg from 'pg';
import { listen } from './server.ts';
import { MapStore } from './store.ts';
import { runWorker } from './worker.ts';

/** ARENA_CPUS=1: one process, its own store and counter, no IPC (the thesis' single-process mode). */
async function runSingle(config: Config, helloHtml: Buffer, records: Records | undefined): Promise<void> {
  let hellos = 0;
  const app = createApp({ config, helloHtml, store: new MapStore(), records, nextHello: async () => ++hellos });
  await listen(app, config.host, config.port);
  console.log(`node: listening on ${config.host}:${config.port} with 1 process`);
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

function startUp(): { config: Config; helloHtml: Buffer; dbPool: number } {
  try {
    const config = loadConfig((name) => process.env[name]);
    // Each of the ARENA_CPUS processes that serve HTTP (the cluster workers, or the single
    // process) has a pool of its own; the primary has none.
    const dbPool = poolShare(config, config.cpus);
    // ARENA_DATA_DIR is relative to the working directory: the harness starts us in servers/node/.
    return { config, helloHtml: readFileSync(resolve(config.dataDir, 'hello.html')), dbPool };
  } catch (err) {
    console.error(`node: ${(err as Error).message}`);
    process.exit(2);
  }
}

const { config, helloHtml, dbPool } = startUp();
/** This process's record table, over a pool of its own; none without ARENA_DB_URL. */
const records = () => (config.dbUrl === undefined ? undefined : pgRecords(pgPool(pg.Pool, config.dbUrl, dbPool, 'node')));
if (config.cpus === 1) {
  runSingle(config, helloHtml, records()).catch((err: Error) => {
    console.error(`node: cannot listen: ${err.message}`);
    process.exit(1);
  });
} else if (cluster.isPrimary) {
  runPrimary(config);
} else {
  runWorker(config, helloHtml, records());
}
