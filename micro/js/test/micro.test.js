import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseArgs, UsageError } from "../src/args.js";
import { payloads, pingping, pingpong, ring, spawn, throughput } from "../src/benches.js";
import { Mailbox } from "../src/mailbox.js";

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
  });
  const options = parseArgs(["throughput", "--mode", "copy", "--seconds", "0.25", "--pairs", "4"]);
  assert.deepEqual([options.mode, options.seconds, options.pairs], ["copy", 0.25, 4]);
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
];

test("arguments: each bad one is a usage error", () => {
  for (const args of BAD) assert.throws(() => parseArgs(args), UsageError, args.join(" "));
});

test("command line: bad arguments exit 2 with one line on stderr and nothing on stdout", () => {
  for (const args of [[], ["pingpong", "--size"], ["ring", "--procs", "1"]]) {
    const done = cli(...args);
    assert.equal(done.status, 2, args.join(" "));
    assert.equal(done.stdout, "");
    assert.match(done.stderr, /^micro: [^\n]+\n$/);
  }
});

test("command line: one JSON line", () => {
  const done = cli("ring", "--mode", "copy", "--procs", "3", "--size", "8", "--rounds", "4");
  assert.equal(done.status, 0, done.stderr);
  const doc = JSON.parse(done.stdout);
  assert.equal(done.stdout.trim().split("\n").length, 1);
  assert.deepEqual(
    [doc.bench, doc.mode, doc.payload, doc.params, doc.check, doc.cpus],
    ["ring", "copy", "copied", { procs: 3, size: 8, rounds: 4 }, { laps: 4, hops: 12 }, 1],
  );
  assert.match(doc.runtime, /^(node v|deno |bun )\d/);
});
