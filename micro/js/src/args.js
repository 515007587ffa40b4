export const BENCHES = ["pingping", "pingpong", "spawn", "throughput", "ring"];

const DEFAULTS = {
  mode: "idiomatic",
  size: 5000,
  rounds: 10000,
  procs: 1000,
  pairs: 1,
  seconds: 1,
  warmupS: 10,
};

// Each option's key in the parsed options: its own name, except --warmup-s (warmupS).
const KEYS = Object.fromEntries(
  Object.keys(DEFAULTS).map((key) => [key === "warmupS" ? "warmup-s" : key, key]),
);

export class UsageError extends Error {}

function count(name, text) {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < 1 || !Number.isSafeInteger(value)) {
    throw new UsageError(`--${name} needs an integer >= 1, got '${text}'`);
  }
  return value;
}

function seconds(text) {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`--seconds needs a number > 0, got '${text}'`);
  }
  return value;
}

function warmupSeconds(text) {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`--warmup-s needs a number >= 0, got '${text}'`);
  }
  return value;
}

// BENCH [--mode idiomatic|copy] [--size S] [--rounds R] [--procs N] [--pairs P] [--seconds D]
//       [--warmup-s W]
export function parseArgs(argv) {
  const [bench, ...rest] = argv;
  if (!BENCHES.includes(bench)) {
    throw new UsageError(
      `expected a bench (${BENCHES.join("|")}), got ${bench === undefined ? "nothing" : `'${bench}'`}`,
    );
  }
  const options = { ...DEFAULTS };
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i];
    const option = flag.startsWith("--") ? flag.slice(2) : "";
    if (!Object.hasOwn(KEYS, option)) {
      throw new UsageError(`unknown option '${flag}'`);
    }
    const name = KEYS[option];
    const text = rest[i + 1];
    if (text === undefined) {
      throw new UsageError(`${flag} needs a value`);
    }
    if (name === "mode") {
      if (text !== "idiomatic" && text !== "copy") {
        throw new UsageError(`--mode is idiomatic or copy, got '${text}'`);
      }
      options.mode = text;
    } else if (name === "seconds") {
      options.seconds = seconds(text);
    } else if (name === "warmupS") {
      options.warmupS = warmupSeconds(text);
    } else {
      options[name] = count(name, text);
    }
  }
  if (bench === "ring" && options.procs < 2) {
    throw new UsageError("ring needs --procs >= 2");
  }
  return { bench, ...options };
}
