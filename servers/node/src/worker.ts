import type { Config } from '../../lib-ts/config.ts';
import type { Records } from '../../lib-ts/record.ts';
import type { App } from './endpoints.ts';
import type { Ask, PrimaryMessage, WorkerMessage } from './ipc.ts';
import { SHARD_ENV } from './ipc.ts';
import { listen } from './server.ts';
import { ShardedStore, applyOp } from './store.ts';

function send(message: WorkerMessage): void {
  process.send!(message);
}

/**
 * A cluster worker: serves HTTP with `app` (either HTTP layer: the store and counter below are
 * the same), owns one shard, reaches the rest through the primary.
 */
export function runWorker(config: Config, app: App, helloHtml: Buffer, records: Records | undefined): void {
  const ownShard = Number(process.env[SHARD_ENV]);
  const local = new Map<string, string>();
  const pending = new Map<number, (value: string | number | undefined) => void>();
  let lastId = 0;

  const ask = <T>(question: Ask): Promise<T> =>
    new Promise((resolve) => {
      const id = ++lastId;
      pending.set(id, resolve as (value: unknown) => void);
      send({ ...question, id });
    });

  const listener = app({
    config,
    helloHtml,
    store: new ShardedStore(ownShard, config.cpus, local, (shard, op) =>
      ask<string | undefined>({ kind: 'store', shard, op }),
    ),
    records,
    nextHello: () => ask<number>({ kind: 'hello' }),
  });

  process.on('message', (message: PrimaryMessage) => {
    switch (message.kind) {
      case 'serve':
        send({ kind: 'served', id: message.id, to: message.from, value: applyOp(local, message.op) });
        break;
      case 'reply':
        pending.get(message.id)?.(message.value);
        pending.delete(message.id);
        break;
      case 'start':
        listen(listener, config.host, config.port).catch((err: Error) => {
          console.error(`node worker ${ownShard}: cannot listen: ${err.message}`);
          process.exit(1);
        });
        break;
    }
  });

  // The primary owns shutdown. A Ctrl-C reaches the whole process group, and a worker
  // dying of it first would look to the primary like a crash that lost a shard.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);

  send({ kind: 'ready' });
}
