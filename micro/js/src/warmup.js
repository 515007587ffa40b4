// The warm-up of spec/micro.md: repeat the bench in-process until its metric is steady or the
// warm-up's time is up, then run it once more as the measured run.

// Steady: at least STEADY_LAST iterations, and the last STEADY_LAST metric values all within
// ±STEADY_BAND of their median.
export const STEADY_LAST = 5;
export const STEADY_BAND = 0.1;
// A throughput warm-up iteration lasts min(D, THROUGHPUT_WARMUP_S).
export const THROUGHPUT_WARMUP_S = 0.1;

// The metric each iteration is judged by (the spec's table; spawn's is us_per_spawn).
export const METRIC = {
  pingping: "us_per_message",
  pingpong: "us_per_round_trip",
  spawn: "us_per_spawn",
  throughput: "messages_per_s",
  ring: "us_per_hop",
};

export function isSteady(series) {
  if (series.length < STEADY_LAST) return false;
  const last = series.slice(-STEADY_LAST);
  const sorted = [...last].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return last.every((value) => Math.abs(value - median) <= STEADY_BAND * Math.abs(median));
}

// The counts a run of `bench` with these options must report (throughput: only consistency, the
// count itself depends on the clock). Throws on a mismatch.
export function verifyCheck(bench, options, check) {
  const { rounds, procs, pairs } = options;
  const expected = {
    pingping: () => ({ received: 2 * rounds }),
    pingpong: () => ({ round_trips: rounds }),
    spawn: () => ({ alive: procs }),
    ring: () => ({ laps: rounds, hops: procs * rounds }),
  };
  if (bench === "throughput") {
    const { messages, per_pair: perPair } = check;
    const sum = perPair.reduce((total, n) => total + n, 0);
    if (!(messages > 0) || perPair.length !== pairs || sum !== messages) {
      throw new Error(
        `warm-up check failed: messages ${messages}, per_pair ${JSON.stringify(perPair)} for ${pairs} pairs`,
      );
    }
    return;
  }
  const want = expected[bench]();
  for (const [name, value] of Object.entries(want)) {
    if (check[name] !== value) {
      throw new Error(`warm-up check failed: ${name} = ${check[name]}, expected ${value}`);
    }
  }
}

// Runs iteration() (which resolves to a bench result) until the values valueOf() takes from the
// results are steady, or until budgetS seconds have passed since the first one began (the
// iteration under way is finished). Returns the warmup object of the output, and the first
// iteration's result (or null when budgetS is 0).
export async function warmUp(iteration, valueOf, budgetS, now = () => performance.now()) {
  if (budgetS <= 0) {
    return { warmup: { iterations: 0, seconds: 0, steady: false, series: [] }, first: null };
  }
  const series = [];
  let first = null;
  let steady = false;
  const start = now();
  do {
    const result = await iteration();
    first ??= result;
    series.push(valueOf(result));
    steady = isSteady(series);
  } while (!steady && now() - start < budgetS * 1000);
  const seconds = (now() - start) / 1000;
  return { warmup: { iterations: series.length, seconds, steady, series }, first };
}

// The whole run of one bench: the warm-up, then the measured run. Spawn's memory figures come
// from the first warm-up iteration when there was one: what a fresh runtime pays per process.
export async function session(bench, run, options) {
  const warmOptions =
    bench === "throughput"
      ? { ...options, seconds: Math.min(options.seconds, THROUGHPUT_WARMUP_S) }
      : options;
  const { warmup, first } = await warmUp(
    async () => {
      const result = await run(warmOptions);
      verifyCheck(bench, warmOptions, result.check);
      return result;
    },
    (result) => result.metric[METRIC[bench]],
    options.warmupS,
  );
  const measured = await run(options);
  let metric = measured.metric;
  if (bench === "spawn" && first) {
    const { bytes_per_process, rss_before_kb, rss_peak_kb } = first.metric;
    metric = { ...metric, bytes_per_process, rss_before_kb, rss_peak_kb };
  }
  return { ...measured, metric, warmup };
}
