import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { runPrimary } from './primary.js';
import { listen } from './server.js';
import { MapStore } from './store.js';
import { runWorker } from './worker.js';

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
    const config = loadConfig();
    return { config, helloHtml: readFileSync(join(config.dataDir, 'hello.html')) };
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
