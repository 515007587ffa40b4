import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, type Config } from '../../lib-ts/config.ts';
import { createApp } from './app.ts';
import { runPrimary } from './primary.ts';
import { listen } from './server.ts';
import { MapStore } from './store.ts';
import { runWorker } from './worker.ts';

/** ARENA_CPUS=1: one process, its own store and counter, no IPC (the thesis' single-process mode). */
async function runSingle(config: Config, helloHtml: Buffer): Promise<void> {
  let hellos = 0;
  const app = createApp({ config, helloHtml, store: new MapStore(), nextHello: async () => ++hellos });
  await listen(app, config.host, config.port);
  console.log(`node: listening on ${config.host}:${config.port} with 1 process`);
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

function startUp(): { config: Config; helloHtml: Buffer } {
  try {
    const config = loadConfig((name) => process.env[name]);
    // ARENA_DATA_DIR is relative to the working directory: the harness starts us in servers/node/.
    return { config, helloHtml: readFileSync(resolve(config.dataDir, 'hello.html')) };
  } catch (err) {
    console.error(`node: ${(err as Error).message}`);
    process.exit(2);
  }
}

const { config, helloHtml } = startUp();
if (config.cpus === 1) {
  runSingle(config, helloHtml).catch((err: Error) => {
    console.error(`node: cannot listen: ${err.message}`);
    process.exit(1);
  });
} else if (cluster.isPrimary) {
  runPrimary(config);
} else {
  runWorker(config, helloHtml);
}
