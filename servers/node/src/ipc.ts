// Messages between the cluster primary and its workers (over cluster's IPC channels).
// A worker never talks to another directly: the primary routes every message.
import type { StoreOp } from './store.ts';

/** What a worker asks for; the primary answers each with a `reply` carrying the same id. */
export type Ask =
  | { kind: 'store'; shard: number; op: StoreOp }
  | { kind: 'hello' };

export type WorkerMessage =
  | (Ask & { id: number })
  /** The owner's answer to a `serve`, for the primary to pass back to worker `to`. */
  | { kind: 'served'; id: number; to: number; value?: string }
  /** Sent once the worker listens for `serve`: it can own its shard. */
  | { kind: 'ready' };

export type PrimaryMessage =
  /** Run `op` on your shard for worker `from`, whose request id is `id`. */
  | { kind: 'serve'; id: number; from: number; op: StoreOp }
  | { kind: 'reply'; id: number; value?: string | number }
  /** Every shard is ready: open the HTTP port. */
  | { kind: 'start' };

/** The environment variable that tells a forked worker which shard it owns. */
export const SHARD_ENV = 'ARENA_NODE_SHARD';
