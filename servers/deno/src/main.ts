import { join } from "node:path";
import { createHandler } from "./app.ts";
import { type Config, loadConfig } from "./config.ts";

function startUp(): { config: Config; helloHtml: Uint8Array<ArrayBuffer> } {
  try {
    const config = loadConfig();
    return { config, helloHtml: Deno.readFileSync(join(config.dataDir, "hello.html")) };
  } catch (err) {
    console.error(`deno: ${err instanceof Error ? err.message : err}`);
    Deno.exit(2);
  }
}

const { config, helloHtml } = startUp();
if (config.cpus > 1) {
  console.error(`deno: ARENA_CPUS=${config.cpus}, but one event loop serves on one core`);
}

// The store lives only in memory and no answer is worth finishing late: stop at once.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => Deno.exit(0));
}

try {
  Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: ({ hostname, port }) => console.log(`deno: listening on ${hostname}:${port}`),
  }, createHandler(config, helloHtml));
} catch (err) {
  console.error(`deno: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  Deno.exit(1);
}
