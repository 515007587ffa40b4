// The contract's ARENA_* variables (spec/README.md, "Configuration"), read through a function so
// that each runtime passes its own environment.
import { MAX_SORT_N } from './validate.ts';

export interface Config {
  host: string;
  port: number;
  cpus: number;
  bcryptCost: number;
  longPollMs: number;
  helloDelayMs: number;
  helloDelayEvery: number;
  sortN: number;
  /** ARENA_DATA_DIR as given: relative to the working directory, which each runtime resolves. */
  dataDir: string;
  /** ARENA_DB_URL, a postgresql:// URL; undefined when unset, and /record answers 503. */
  dbUrl: string | undefined;
  /** ARENA_DB_POOL: the most database connections of the whole server, all processes together. */
  dbPool: number;
}

export class ConfigError extends Error {}

/** Looks up one environment variable, e.g. `(name) => process.env[name]`. */
export type Env = (name: string) => string | undefined;

// JavaScript runtimes turn a longer timer delay into 1 ms, so a larger value would silently run
// with a different setting.
const MAX_TIMER_MS = 2 ** 31 - 1;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(raw)) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a decimal integer`);
  }
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(`${name}=${raw} is outside ${min}..${max}`);
  }
  return value;
}

function text(env: Env, name: string, fallback: string): string {
  const raw = env(name);
  if (raw === undefined) return fallback;
  if (raw === '') throw new ConfigError(`${name} is set but empty`);
  return raw;
}

function postgresUrl(env: Env, name: string): string | undefined {
  const raw = env(name);
  if (raw === undefined) return undefined;
  // Checked here so that a typo stops the start rather than every /record; the URL holds a
  // password, so the message does not repeat it.
  if (!URL.canParse(raw) || !['postgresql:', 'postgres:'].includes(new URL(raw).protocol)) {
    throw new ConfigError(`${name} is not a postgresql://user:password@host:port/db URL`);
  }
  return raw;
}

/** Reads the contract's ARENA_* variables; throws ConfigError on a malformed one. */
export function loadConfig(env: Env): Config {
  return {
    host: text(env, 'ARENA_HOST', '127.0.0.1'),
    port: integer(env, 'ARENA_PORT', 8080, 1, 65535),
    cpus: integer(env, 'ARENA_CPUS', 1, 1, 1024),
    bcryptCost: integer(env, 'ARENA_BCRYPT_COST', 10, 4, 31),
    longPollMs: integer(env, 'ARENA_LONGPOLL_MS', 5000, 0, MAX_TIMER_MS),
    helloDelayMs: integer(env, 'ARENA_HELLO_DELAY_MS', 2000, 0, MAX_TIMER_MS),
    helloDelayEvery: integer(env, 'ARENA_HELLO_DELAY_EVERY', 10, 1, Number.MAX_SAFE_INTEGER),
    sortN: integer(env, 'ARENA_SORT_N', 50000, 1, MAX_SORT_N),
    // The harness starts each server in its own folder, servers/<impl>/.
    dataDir: text(env, 'ARENA_DATA_DIR', '../../spec/data'),
    dbUrl: postgresUrl(env, 'ARENA_DB_URL'),
    dbPool: integer(env, 'ARENA_DB_POOL', 8, 1, 1000),
  };
}

/**
 * The database connections each of `processes` may hold: ARENA_DB_POOL is the whole server's, so
 * each gets its share, rounded down; throws ConfigError when one would get none.
 */
export function poolShare(config: Pick<Config, 'dbPool'>, processes: number): number {
  if (config.dbPool < processes) {
    throw new ConfigError(
      `ARENA_DB_POOL=${config.dbPool} is fewer than the ${processes} processes that share it`,
    );
  }
  return Math.floor(config.dbPool / processes);
}
