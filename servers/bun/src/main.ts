import { join } from 'node:path';
import { serve } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

async function startUp() {
  try {
    const config = loadConfig();
    return { config, helloHtml: await Bun.file(join(config.dataDir, 'hello.html')).bytes() };
  } catch (err) {
    console.error(`bun: ${(err as Error).message}`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
}

const { config, helloHtml } = await startUp();
try {
  const server = serve(config, helloHtml);
  console.log(`bun: listening on ${server.hostname}:${server.port} with 1 JS thread (ARENA_CPUS=${config.cpus})`);
} catch (err) {
  console.error(`bun: cannot listen: ${(err as Error).message}`);
  process.exit(1);
}

// Nothing to flush: the stores live in memory and die with the process anyway.
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
