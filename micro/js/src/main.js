// Entry point shared by Node.js, Deno and Bun: BENCH [--mode ...] [--size S] ... (spec/micro.md).
// The bench is warmed up (src/warmup.js), then run once more as the measured run.
import process from "node:process";
import { parseArgs, UsageError } from "./args.js";
import * as benches from "./benches.js";
import { session } from "./warmup.js";

const PARAMS = {
  pingping: ["size", "rounds"],
  pingpong: ["size", "rounds"],
  spawn: ["procs"],
  throughput: ["pairs", "size", "seconds"],
  ring: ["procs", "size", "rounds"],
};

function runtimeName() {
  const { bun, deno } = process.versions;
  if (bun) return `bun ${bun}`;
  if (deno) return `deno ${deno}`;
  return `node ${process.version}`;
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`micro: ${error.message}`);
  process.exit(2);
}

// If the event loop ran dry while a process still waited for a message, the exit code stays 1.
// (Main is not a top-level await: Bun 1.4 spins forever on one that cannot settle.)
let pending = true;
process.exitCode = 1;
process.on("exit", () => {
  if (pending) {
    console.error("micro: the event loop emptied while a process still waited for a message");
  }
});

session(options.bench, benches[options.bench], options).then(
  ({ elapsed_s, metric, check, warmup }) => {
    pending = false;
    const params = Object.fromEntries(PARAMS[options.bench].map((name) => [name, options[name]]));
    console.log(
      JSON.stringify({
        bench: options.bench,
        mode: options.mode,
        payload: options.mode === "copy" ? "copied" : "shared",
        params,
        elapsed_s,
        metric,
        check,
        warmup,
        runtime: runtimeName(),
        // Every process runs on the one JavaScript thread of the event loop.
        cpus: 1,
      }),
    );
    process.exitCode = 0;
  },
  (error) => {
    pending = false;
    console.error(`micro: ${options.bench} failed: ${error?.message ?? error}`);
  },
);
