import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseArgs, UsageError } from "../src/args.js";
import { payloads, pingping, pingpong, ring, spawn, throughput } from "../src/benches.js";
import { Mailbox } from "../src/mailbox.js";
import { isSteady, session, verifyCheck, warmUp } from "../src/warmup.js";

const MAIN = fileURLToPath(new URL("../src/main.js", import.meta.url));
// The same file runs under node --test, deno test and bun test; each starts main.js its own way.
const RUN = process.versions.deno ? [process.execPath, "run", MAIN] : [process.execPath, MAIN];

function cli(...args) {
  return spawnSync(RUN[0], [...RUN.slice(1), ...args], { encoding: "utf8" });
}

test("a mailbox delivers in order, to a waiting or a later receive", async () => {
  const mailbox = new Mailbox();
  const first = mailbox.receive();
  mailbox.send(1);
  mailbox.send(2);
  mailbox.send(3);
  assert.deepEqual([await first, await mailbox.receive(), await mailbox.receive()], [1, 2, 3]);
});

test("copy mode fills each buffer with seq mod 256 and refuses a wrong one", () => {
  const payload = payloads("copy", 10);
  const buffer = payload.make(300);
  assert.equal(buffer.length, 10);
  assert.deepEqual([buffer[0], buffer[9]], [44, 44]);
  payload.verify(buffer, 300);
  assert.throws(() => payload.verify(buffer, 301), /copy check failed/);
});

test("idiomatic mode sends the same buffer every time", () => {
  const payload = payloads("idiomatic", 10);
  assert.equal(payload.make(0), payload.make(1));
});

for (const mode of ["idiomatic", "copy"]) {
  test(`pingping ${mode}`, async () => {
    const { check } = await pingping({ mode, size: 300, rounds: 500 });
    assert.deepEqual(check, { received: 1000 });
  });

  test(`pingpong ${mode}`, async () => {
    const { check, metric } = await pingpong({ mode, size: 300, rounds: 500 });
    assert.deepEqual(check, { round_trips: 500 });
    assert.ok(metric.us_per_round_trip > 0);
  });

  test(`throughput ${mode}`, async () => {
    const { check, elapsed_s } = await throughput({ mode, size: 100, pairs: 3, seconds: 0.05 });
    assert.equal(check.per_pair.length, 3);
    assert.ok(check.per_pair.every((n) => n > 0 && n % 2 === 0));
    assert.equal(
      check.messages,
      check.per_pair.reduce((a, b) => a + b),
    );
    assert.ok(elapsed_s >= 0.05);
  });

  for (const procs of [2, 7]) {
    test(`ring ${mode} with ${procs} processes`, async () => {
      const { check } = await ring({ mode, size: 3, procs, rounds: 300 });
      assert.deepEqual(check, { laps: 300, hops: procs * 300 });
    });
  }
}

test("spawn", async () => {
  const { check, metric } = await spawn({ procs: 2000 });
  assert.deepEqual(check, { alive: 2000 });
  assert.ok(metric.rss_peak_kb > 0 && metric.rss_before_kb > 0);
});

test("arguments: defaults and values", () => {
  assert.deepEqual(parseArgs(["pingpong"]), {
    bench: "pingpong",
    mode: "idiomatic",
    size: 5000,
    rounds: 10000,
    procs: 1000,
    pairs: 1,
    seconds: 1,
    warmupS: 10,
  });
  const options = parseArgs(["throughput", "--mode", "copy", "--seconds", "0.25", "--pairs", "4"]);
  assert.deepEqual([options.mode, options.seconds, options.pairs], ["copy", 0.25, 4]);
  assert.equal(parseArgs(["ring", "--warmup-s", "0"]).warmupS, 0);
  assert.equal(parseArgs(["ring", "--warmup-s", "2.5"]).warmupS, 2.5);
});

const BAD = [
  [],
  ["nosuchbench"],
  ["pingpong", "--size", "0"],
  ["pingpong", "--rounds", "-3"],
  ["pingpong", "--size", "1.5"],
  ["pingpong", "--size", "abc"],
  ["pingpong", "--mode", "weird"],
  ["pingpong", "--bogus", "1"],
  ["pingpong", "--size"],
  ["ring", "--procs", "1"],
  ["throughput", "--seconds", "0"],
  ["throughput", "--seconds", ""],
  ["pingpong", "--warmup-s", "-1"],
  ["pingpong", "--warmup-s", "-0.5"],
  ["pingpong", "--warmup-s", "abc"],
  ["pingpong", "--warmup-s", ""],
  ["pingpong", "--warmup-s", "Infinity"],
  ["pingpong", "--warmup-s"],
  ["pingpong", "--warmupS", "1"],
];

test("arguments: each bad one is a usage error", () => {
  for (const args of BAD) assert.throws(() => parseArgs(args), UsageError, args.join(" "));
});

test("command line: bad arguments exit 2 with one line on stderr and nothing on stdout", () => {
  for (const args of [
    [],
    ["pingpong", "--size"],
    ["ring", "--procs", "1"],
    ["pingpong", "--warmup-s", "-1"],
    ["pingpong", "--warmup-s", "soon"],
    ["pingpong", "--warmup-s"],
  ]) {
    const done = cli(...args);
    assert.equal(done.status, 2, args.join(" "));
    assert.equal(done.stdout, "");
    assert.match(done.stderr, /^micro: [^\n]+\n$/);
  }
});

test("command line: one JSON line", () => {
  const done = cli(..."ring --mode copy --procs 3 --size 8 --rounds 4 --warmup-s 0.2".split(" "));
  assert.equal(done.status, 0, done.stderr);
  const doc = JSON.parse(done.stdout);
  assert.equal(done.stdout.trim().split("\n").length, 1);
  assert.deepEqual(
    [doc.bench, doc.mode, doc.payload, doc.params, doc.check, doc.cpus],
    ["ring", "copy", "copied", { procs: 3, size: 8, rounds: 4 }, { laps: 4, hops: 12 }, 1],
  );
  assert.match(doc.runtime, /^(node v|deno |bun )\d/);
});

// [series, steady?]: at least 5 values, the last 5 within ±10% of their median.
const STEADY = [
  [[], false],
  [[1, 1, 1, 1], false],
  [[1, 1, 1, 1, 1], true],
  [[50, 1, 1, 1, 1, 1], true],
  [[1, 1, 1, 1, 1, 50], false],
  [[100, 110, 90, 100, 100], true],
  [[100, 111, 100, 100, 100], false],
  [[100, 89, 100, 100, 100], false],
  [[95, 105, 100, 104, 96], true],
  [[100, 100, 100, 130, 130], false],
  [[100, 100, 104, 108, 109], true],
  [[0.2, 0.21, 0.19, 0.2, 0.2], true],
  [[0, 0, 0, 0, 0], true],
];

test("the steadiness rule", () => {
  for (const [series, steady] of STEADY) {
    assert.equal(isSteady(series), steady, JSON.stringify(series));
  }
});

// A clock that moves by the given steps, one per call.
function fakeClock(step) {
  let time = 0;
  return () => (time += step);
}

test("warm-up: stops once steady", async () => {
  const values = [9, 5, 3, 2, 2, 2, 2, 2, 7, 7];
  let i = 0;
  const { warmup, first } = await warmUp(
    async () => ({ value: values[i++] }),
    (result) => result.value,
    1000,
    fakeClock(1),
  );
  assert.deepEqual(warmup.series, [9, 5, 3, 2, 2, 2, 2, 2]);
  assert.deepEqual([warmup.iterations, warmup.steady], [8, true]);
  assert.deepEqual(first, { value: 9 });
});

test("warm-up: stops when the time is up, after the iteration under way", async () => {
  let i = 0;
  // 0.3 s pass per clock reading: the second check after start sees 0.6 s > 0.5 s.
  const { warmup } = await warmUp(
    async () => ({ value: ++i * 10 }),
    (result) => result.value,
    0.5,
    fakeClock(300),
  );
  assert.deepEqual(warmup, { iterations: 2, seconds: 0.9, steady: false, series: [10, 20] });
});

test("warm-up: none with 0 seconds", async () => {
  let calls = 0;
  const { warmup, first } = await warmUp(
    async () => ++calls,
    (value) => value,
    0,
  );
  assert.deepEqual(warmup, { iterations: 0, seconds: 0, steady: false, series: [] });
  assert.deepEqual([first, calls], [null, 0]);
});

test("warm-up: an iteration's counts are checked", () => {
  verifyCheck("ring", { procs: 3, rounds: 4 }, { laps: 4, hops: 12 });
  assert.throws(() => verifyCheck("ring", { procs: 3, rounds: 4 }, { laps: 4, hops: 11 }), /hops/);
  assert.throws(() => verifyCheck("pingping", { rounds: 4 }, { received: 7 }), /received/);
  assert.throws(() => verifyCheck("spawn", { procs: 4 }, { alive: 3 }), /alive/);
  verifyCheck("throughput", { pairs: 2 }, { messages: 6, per_pair: [2, 4] });
  assert.throws(() => verifyCheck("throughput", { pairs: 2 }, { messages: 6, per_pair: [6] }));
  assert.throws(() => verifyCheck("throughput", { pairs: 1 }, { messages: 0, per_pair: [0] }));
});

test("warm-up: a wrong count in an iteration fails the run", async () => {
  const lossy = async () => ({
    elapsed_s: 1,
    metric: { us_per_round_trip: 1 },
    check: { round_trips: 9 },
  });
  await assert.rejects(session("pingpong", lossy, { rounds: 10, warmupS: 1 }), /round_trips/);
});

test("warm-up: spawn's memory comes from the first iteration, the rest from the measured run", async () => {
  let i = 0;
  const fake = async ({ procs }) => {
    i++;
    return {
      elapsed_s: i,
      metric: {
        us_per_spawn: 1,
        bytes_per_process: i,
        rss_before_kb: 100 * i,
        rss_peak_kb: 200 * i,
      },
      check: { alive: procs },
    };
  };
  const done = await session("spawn", fake, { procs: 10, warmupS: 100 });
  assert.deepEqual(done.warmup.series, [1, 1, 1, 1, 1]);
  assert.equal(done.elapsed_s, 6);
  assert.deepEqual(done.metric, {
    us_per_spawn: 1,
    bytes_per_process: 1,
    rss_before_kb: 100,
    rss_peak_kb: 200,
  });
});

test("warm-up: throughput's iterations last min(D, 0.1 s)", async () => {
  const seen = [];
  const fake = async ({ seconds }) => {
    seen.push(seconds);
    return {
      elapsed_s: seconds,
      metric: { messages_per_s: 5 },
      check: { messages: 2, per_pair: [2] },
    };
  };
  await session("throughput", fake, { pairs: 1, seconds: 3, warmupS: 100 });
  assert.deepEqual(seen, [0.1, 0.1, 0.1, 0.1, 0.1, 3]);
  seen.length = 0;
  await session("throughput", fake, { pairs: 1, seconds: 0.05, warmupS: 100 });
  assert.deepEqual(seen, [0.05, 0.05, 0.05, 0.05, 0.05, 0.05]);
});

test("command line: the warmup object", () => {
  const done = cli(..."pingpong --size 10 --rounds 200 --warmup-s 0.3".split(" "));
  assert.equal(done.status, 0, done.stderr);
  const { warmup, check } = JSON.parse(done.stdout);
  assert.deepEqual(Object.keys(warmup), ["iterations", "seconds", "steady", "series"]);
  assert.ok(warmup.iterations >= 1);
  assert.equal(warmup.series.length, warmup.iterations);
  assert.ok(warmup.series.every((value) => value > 0));
  assert.ok(warmup.seconds > 0);
  assert.equal(warmup.steady, isSteady(warmup.series));
  assert.deepEqual(check, { round_trips: 200 });
});

test("command line: --warmup-s 0 runs no warm-up", () => {
  const done = cli(..."spawn --procs 50 --warmup-s 0".split(" "));
  assert.equal(done.status, 0, done.stderr);
  const doc = JSON.parse(done.stdout);
  assert.deepEqual(doc.warmup, { iterations: 0, seconds: 0, steady: false, series: [] });
  assert.deepEqual(doc.check, { alive: 50 });
});
