// The key-value store of passwords and users. With several workers it is sharded
// over them as in the thesis: fnv1a(key) picks the worker whose Map holds the key.

export interface Store {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

export type StoreOp = { op: 'get'; key: string } | { op: 'set'; key: string; value: string };

/** 32-bit FNV-1a over the key's UTF-8 bytes. */
export function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash;
}

export function applyOp(map: Map<string, string>, op: StoreOp): string | undefined {
  if (op.op === 'get') return map.get(op.key);
  map.set(op.key, op.value);
  return undefined;
}

/** The whole key space in this process: the single-process mode, which needs no IPC. */
export class MapStore implements Store {
  private readonly map = new Map<string, string>();

  async get(key: string): Promise<string | undefined> {
    return this.map.get(key);
  }

  async set(key: string, value: string): Promise<void> {
    this.map.set(key, value);
  }
}

/** Sends an operation to the worker owning another shard and resolves with its answer. */
export type RemoteShard = (shard: number, op: StoreOp) => Promise<string | undefined>;

/** One worker's view: its own shard in a local Map, every other shard over IPC. */
export class ShardedStore implements Store {
  constructor(
    private readonly ownShard: number,
    private readonly shardCount: number,
    private readonly local: Map<string, string>,
    private readonly remote: RemoteShard,
  ) {}

  shardOf(key: string): number {
    return fnv1a(key) % this.shardCount;
  }

  get(key: string): Promise<string | undefined> {
    return this.run({ op: 'get', key });
  }

  async set(key: string, value: string): Promise<void> {
    await this.run({ op: 'set', key, value });
  }

  private async run(op: StoreOp): Promise<string | undefined> {
    const shard = this.shardOf(op.key);
    return shard === this.ownShard ? applyOp(this.local, op) : this.remote(shard, op);
  }
}
