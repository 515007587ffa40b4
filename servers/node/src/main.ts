// The one entry point of the four setups (arena.toml's [[setup]], README.md):
//   --server=express|http        the HTTP layer: Express 5 (default), or node:http's bare listener
//   --processes=cluster|single   a cluster worker per core (default; one process on one core),
//                                or one process whatever ARENA_CPUS is
// Everything but the HTTP layer is the same in all four: the store, the IPC, the primary, the
// worker, the configuration and the records.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig, poolShare, type Config } from '../../lib-ts/config.ts';
import { type Records, pgPool, pgRecords } from '../../lib-ts/record.ts';
import type { App } from './endpoints.ts';
import { expressApp } from './express-app.ts';
import { httpApp } from './http-app.ts';
import { runPrimary } from './primary.ts';
import { listen } from './server.ts';
import { MapStore } from './store.ts';
import { runWorker } from './worker.ts';

const APPS: Record<string, App> = { express: expressApp, http: httpApp };
const PROCESS_MODELS = ['cluster', 'single'];

/** The setup asked for on the command line; a bad option stops the start with status 2. */
function setupOf(): { server: string; processes: string } {
  try {
    const { server, processes } = parseArgs({
      options: {
        server: { type: 'string', default: 'express' },
        processes: { type: 'string', default: 'cluster' },
      },
    }).values;
    if (!Object.hasOwn(APPS, server)) throw new Error(`--server=${server} is not express or http`);
    if (!PROCESS_MODELS.includes(processes)) {
      throw new Error(`--processes=${processes} is not cluster or single`);
    }
    return { server, processes };
  } catch (err) {
    const usage = 'main.js [--server=express|http] [--processes=cluster|single]';
    console.error(`node: ${(err as Error).message} (usage: ${usage})`);
    process.exit(2);
  }
}

/** One process, its own store and counter, no IPC: --processes=single, or a budget of one core. */
async function runSingle(
  config: Config,
  app: App,
  helloHtml: Buffer,
  records: Records | undefined,
  setup: string,
): Promise<void> {
  let hellos = 0;
  const listener = app({ config, helloHtml, store: new MapStore(), records, nextHello: async () => ++hellos });
  await listen(listener, config.host, config.port);
  console.log(`node ${setup}: listening on ${config.host}:${config.port} with 1 process`);
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

function startUp(processes: string): { config: Config; helloHtml: Buffer; single: boolean; dbPool: number } {
  try {
    const config = loadConfig((name) => process.env[name]);
    const single = processes === 'single' || config.cpus === 1;
    // Each process that serves HTTP (each cluster worker, or the single process) has a pool of
    // its own; the primary has none.
    const dbPool = poolShare(config, single ? 1 : config.cpus);
    // ARENA_DATA_DIR is relative to the working directory: the harness starts us in servers/node/.
    return { config, helloHtml: readFileSync(resolve(config.dataDir, 'hello.html')), single, dbPool };
  } catch (err) {
    console.error(`node: ${(err as Error).message}`);
    process.exit(2);
  }
}

const { server, processes } = setupOf();
const setup = `${server}-${processes}`;
const app = APPS[server];
const { config, helloHtml, single, dbPool } = startUp(processes);
/** This process's record table, over a pool of its own; none without ARENA_DB_URL. */
const records = () => (config.dbUrl === undefined ? undefined : pgRecords(pgPool(pg.Pool, config.dbUrl, dbPool, 'node')));
if (single) {
  runSingle(config, app, helloHtml, records(), setup).catch((err: Error) => {
    console.error(`node: cannot listen: ${err.message}`);
    process.exit(1);
  });
} else if (cluster.isPrimary) {
  runPrimary(config, setup);
} else {
  runWorker(config, app, helloHtml, records());
}
