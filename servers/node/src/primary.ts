import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../../lib-ts/config.ts';
import { SHARD_ENV, type PrimaryMessage, type WorkerMessage } from './ipc.ts';

/**
 * The cluster primary: forks one worker per core, serves no HTTP itself, keeps the
 * global /hello counter and routes store operations to the worker owning the shard. The workers
 * run this same script with the same options, so they serve the same setup, named `setup`.
 */
export function runPrimary(config: Config, setup: string): void {
  const workers: Worker[] = [];
  const shardOf = new Map<Worker, number>();
  let ready = 0;
  let listening = 0;
  let hellos = 0;
  let stopping = false;
  let exitCode = 0;

  const send = (worker: Worker, message: PrimaryMessage) => {
    // While stopping, a live worker may still answer one that was already killed.
    if (worker.isConnected()) worker.send(message);
  };

  function stop(code: number): void {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    // A worker holds nothing worth flushing: its shard dies with the server anyway.
    for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
    if (workers.every((worker) => worker.isDead())) process.exit(exitCode);
  }

  cluster.on('message', (worker: Worker, message: WorkerMessage) => {
    switch (message.kind) {
      case 'ready':
        // Open the port only when every shard can answer.
        if (++ready === workers.length) for (const w of workers) send(w, { kind: 'start' });
        break;
      case 'hello':
        send(worker, { kind: 'reply', id: message.id, value: ++hellos });
        break;
      case 'store':
        send(workers[message.shard], {
          kind: 'serve',
          id: message.id,
          from: shardOf.get(worker)!,
          op: message.op,
        });
        break;
      case 'served':
        send(workers[message.to], { kind: 'reply', id: message.id, value: message.value });
        break;
    }
  });

  cluster.on('listening', (_worker, address) => {
    if (++listening === workers.length) {
      console.log(`node ${setup}: listening on ${config.host}:${address.port} with ${workers.length} workers`);
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (workers.every((w) => w.isDead())) process.exit(exitCode);
      return;
    }
    // Its shard of the store is gone: better no server than one that lost data.
    console.error(`node: worker ${shardOf.get(worker)} exited (${signal ?? code}); stopping`);
    stop(1);
  });

  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  for (let shard = 0; shard < config.cpus; shard++) {
    const worker = cluster.fork({ [SHARD_ENV]: String(shard) });
    workers.push(worker);
    shardOf.set(worker, shard);
  }
}
