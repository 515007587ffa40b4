import assert from "node:assert/strict";
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "./config.ts";

const from = (vars: Record<string, string>) => loadConfig((name) => vars[name]);

Deno.test("unset variables take the contract's defaults", () => {
  assert.deepEqual(from({}), {
    host: "127.0.0.1",
    port: 8080,
    cpus: 1,
    bcryptCost: 10,
    longPollMs: 5000,
    helloDelayMs: 2000,
    helloDelayEvery: 10,
    sortN: 50000,
    dataDir: resolve("../../spec/data"),
  });
});

Deno.test("set variables are read", () => {
  const config = from({
    ARENA_HOST: "0.0.0.0",
    ARENA_PORT: "65535",
    ARENA_BCRYPT_COST: "04",
    ARENA_LONGPOLL_MS: "0",
    ARENA_SORT_N: "200000",
    ARENA_DATA_DIR: "/srv/data",
  });
  assert.equal(config.host, "0.0.0.0");
  assert.equal(config.port, 65535);
  assert.equal(config.bcryptCost, 4);
  assert.equal(config.longPollMs, 0);
  assert.equal(config.sortN, 200000);
  assert.equal(config.dataDir, "/srv/data");
});

Deno.test("malformed values are refused, never replaced", () => {
  const bad: Record<string, string>[] = [
    { ARENA_PORT: "abc" },
    { ARENA_PORT: "0" },
    { ARENA_PORT: "65536" },
    { ARENA_PORT: "80.5" },
    { ARENA_PORT: " 80" },
    { ARENA_CPUS: "0" },
    { ARENA_BCRYPT_COST: "3" },
    { ARENA_BCRYPT_COST: "32" },
    { ARENA_LONGPOLL_MS: "-1" },
    { ARENA_HELLO_DELAY_MS: "1e3" },
    { ARENA_HELLO_DELAY_EVERY: "0" },
    { ARENA_SORT_N: "200001" },
    { ARENA_HOST: "" },
    { ARENA_DATA_DIR: "" },
  ];
  for (const vars of bad) {
    assert.throws(() => from(vars), ConfigError, JSON.stringify(vars));
  }
});
