// The five benches of spec/micro.md. A process is an async function given its own Mailbox (and
// its peers' mailboxes); all of them run on the one event loop, and a message travels as a
// reference handed from send() to the receiver's pending promise.
import process from "node:process";
import { Mailbox } from "./mailbox.js";

const STOP = Symbol("stop");

// Idiomatic mode sends one Uint8Array made before the clock starts: a JS send passes a
// reference, so every receiver sees that same buffer. Copy mode makes a fresh buffer per send.
export function payloads(mode, size) {
  if (mode === "idiomatic") {
    const shared = new Uint8Array(size);
    return { make: () => shared, verify: () => {} };
  }
  return {
    make: (seq) => new Uint8Array(size).fill(seq & 255),
    verify(buffer, seq) {
      const want = seq & 255;
      if (buffer[0] !== want || buffer[size - 1] !== want) {
        throw new Error(
          `copy check failed: message ${seq} holds bytes ${buffer[0]}..${buffer[size - 1]}, expected ${want}`,
        );
      }
    },
  };
}

const rssKb = () => Math.round(process.memoryUsage.rss() / 1024);

function result(elapsedMs, metric, check) {
  return { elapsed_s: elapsedMs / 1000, metric, check };
}

// Both send, then both receive, each round. The first message is the start signal.
async function pingPlayer(self, peer, rounds, payload) {
  await self.receive();
  let received = 0;
  for (let seq = 0; seq < rounds; seq++) {
    peer.send(payload.make(seq));
    payload.verify(await self.receive(), received);
    received++;
  }
  return received;
}

// Sends, waits for the answer, and goes on while more() says so; the start signal carries the
// time the clock started. Returns the answers received.
async function pinger(self, peer, payload, more) {
  const start = await self.receive();
  let answers = 0;
  for (let seq = 0; more(answers, start); seq++) {
    peer.send(payload.make(seq));
    payload.verify(await self.receive(), answers);
    answers++;
  }
  peer.send(STOP);
  return answers;
}

// Answers every message until STOP. Returns the messages received.
async function ponger(self, peer, payload) {
  let received = 0;
  for (;;) {
    const message = await self.receive();
    if (message === STOP) return received;
    payload.verify(message, received);
    peer.send(payload.make(received));
    received++;
  }
}

export async function pingping({ mode, size, rounds }) {
  const payload = payloads(mode, size);
  const a = new Mailbox();
  const b = new Mailbox();
  const players = [pingPlayer(a, b, rounds, payload), pingPlayer(b, a, rounds, payload)];
  const start = performance.now();
  a.send(start);
  b.send(start);
  const [fromB, fromA] = await Promise.all(players);
  const elapsed = performance.now() - start;
  return result(
    elapsed,
    { us_per_message: (elapsed * 1000) / rounds },
    { received: fromA + fromB },
  );
}

export async function pingpong({ mode, size, rounds }) {
  const payload = payloads(mode, size);
  const a = new Mailbox();
  const b = new Mailbox();
  const first = pinger(a, b, payload, (answers) => answers < rounds);
  const second = ponger(b, a, payload);
  const start = performance.now();
  a.send(start);
  const roundTrips = await first;
  const elapsed = performance.now() - start;
  await second;
  return result(
    elapsed,
    { us_per_round_trip: (elapsed * 1000) / rounds },
    { round_trips: roundTrips },
  );
}

export async function spawn({ procs }) {
  let started = 0;
  let allStarted;
  const everyoneStarted = new Promise((resolve) => {
    allStarted = resolve;
  });
  const signalStarted = () => {
    started++;
    if (started === procs) allStarted();
  };
  const mailboxes = [];
  const running = [];
  const rssBefore = rssKb();
  const start = performance.now();
  for (let i = 0; i < procs; i++) {
    const self = new Mailbox();
    mailboxes.push(self);
    running.push(
      (async () => {
        signalStarted();
        await self.receive();
      })(),
    );
  }
  await everyoneStarted;
  const elapsed = performance.now() - start;
  const rssPeak = rssKb();
  for (const mailbox of mailboxes) mailbox.send(null);
  await Promise.all(running);
  return result(
    elapsed,
    {
      us_per_spawn: (elapsed * 1000) / procs,
      bytes_per_process: ((rssPeak - rssBefore) * 1024) / procs,
      rss_before_kb: rssBefore,
      rss_peak_kb: rssPeak,
    },
    { alive: started },
  );
}

export async function throughput({ mode, size, pairs, seconds }) {
  const payload = payloads(mode, size);
  // A pair stops at the first round trip that ends after the deadline.
  const beforeDeadline = (answers, start) => performance.now() - start < seconds * 1000;
  const pingers = [];
  const pongers = [];
  const starts = [];
  for (let i = 0; i < pairs; i++) {
    const a = new Mailbox();
    const b = new Mailbox();
    pingers.push(pinger(a, b, payload, beforeDeadline));
    pongers.push(ponger(b, a, payload));
    starts.push(a);
  }
  const start = performance.now();
  for (const mailbox of starts) mailbox.send(start);
  const answers = await Promise.all(pingers);
  const elapsed = performance.now() - start;
  const pings = await Promise.all(pongers);
  const perPair = answers.map((n, i) => n + pings[i]);
  const messages = perPair.reduce((sum, n) => sum + n, 0);
  return result(
    elapsed,
    { messages_per_s: messages / (elapsed / 1000) },
    { messages, per_pair: perPair },
  );
}

// The token's counter is raised by each process when the token arrives; a copy-mode buffer is
// filled with the counter it travels with.
async function ringMember(self, next, rounds, payload) {
  for (let lap = 0; lap < rounds; lap++) {
    const token = await self.receive();
    payload.verify(token.buffer, token.hops);
    token.hops++;
    token.buffer = payload.make(token.hops);
    next.send(token);
  }
}

export async function ring({ mode, size, procs, rounds }) {
  const payload = payloads(mode, size);
  const own = new Mailbox();
  const members = [];
  let next = own;
  for (let i = 1; i < procs; i++) {
    const self = new Mailbox();
    members.push(ringMember(self, next, rounds, payload));
    next = self;
  }
  const token = { hops: 0, buffer: payload.make(0) };
  const start = performance.now();
  next.send(token);
  let laps = 0;
  let hops = 0;
  while (laps < rounds) {
    const back = await own.receive();
    payload.verify(back.buffer, back.hops);
    hops = ++back.hops;
    laps++;
    if (laps < rounds) {
      back.buffer = payload.make(hops);
      next.send(back);
    }
  }
  const elapsed = performance.now() - start;
  await Promise.all(members);
  return result(elapsed, { us_per_hop: (elapsed * 1000) / (procs * rounds) }, { laps, hops });
}
