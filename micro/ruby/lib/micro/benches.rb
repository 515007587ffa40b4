# frozen_string_literal: true

module Micro
  # The benches: a process is a Thread, its mailbox a Thread::Queue. A send pushes a reference onto
  # the receiver's unbounded queue; a receive is a blocking pop, which gives up the GVL until a message
  # is there. A process hands its counts back as the value of its thread.
  module Benches
    Result = Struct.new(:elapsed, :check, :rss_kb)

    module_function

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    def rss_kb
      File.foreach('/proc/self/status') { |line| return line.split[1].to_i if line.start_with?('VmRSS:') }
      raise 'no VmRSS in /proc/self/status'
    end

    # A process signals that it exists and waits, then does its work.
    def start_process(started)
      Thread.new do
        started << :started
        yield
      end
    end

    def wait_started(started, count)
      alive = 0
      count.times do
        started.pop
        alive += 1
      end
      alive
    end

    def exchange(rounds, payload, inbox, peer)
      received = 0
      rounds.times do |seq|
        peer << payload.make(seq)
        payload.check(inbox.pop, received)
        received += 1
      end
      [received, now]
    end

    def pingping(params, payload)
      started = Queue.new
      mine = Queue.new
      theirs = Queue.new
      peer = start_process(started) do
        theirs.pop # the go message
        exchange(params[:rounds], payload, theirs, mine)
      end
      wait_started(started, 1)
      start = now
      theirs << :go
      received, stop = exchange(params[:rounds], payload, mine, theirs)
      peer_received, peer_stop = peer.value
      Result.new([stop, peer_stop].max - start, { received: received + peer_received })
    end

    def answer(rounds, payload, inbox, peer)
      rounds.times do |received|
        payload.check(inbox.pop, received)
        peer << payload.make(received)
      end
    end

    def pingpong(params, payload)
      started = Queue.new
      mine = Queue.new
      theirs = Queue.new
      peer = start_process(started) { answer(params[:rounds], payload, theirs, mine) }
      wait_started(started, 1)
      start = now
      round_trips = 0
      params[:rounds].times do |seq|
        theirs << payload.make(seq)
        payload.check(mine.pop, round_trips)
        round_trips += 1
      end
      elapsed = now - start
      peer.join
      Result.new(elapsed, { round_trips: })
    end

    def spawn(params, _payload)
      started = Queue.new
      before = rss_kb
      start = now
      threads, inboxes = Array.new(params[:procs]) do |i|
        inbox = Queue.new
        [start_process(started) { inbox.pop }, inbox]
      rescue ThreadError => e
        raise ThreadError, "could not start thread #{i + 1} of #{params[:procs]}: #{e.message}"
      end.transpose
      alive = wait_started(started, params[:procs])
      elapsed = now - start
      peak = rss_kb
      inboxes.each { |inbox| inbox << :stop }
      threads.each(&:join)
      Result.new(elapsed, { alive: }, [before, peak])
    end

    def serve(payload, inbox, peer)
      received = 0
      while (data = inbox.pop)
        payload.check(data, received)
        peer << payload.make(received)
        received += 1
      end
      received
    end

    def play(payload, inbox, peer)
      deadline = inbox.pop
      received = 0
      loop do
        peer << payload.make(received) # sends so far = answers received so far
        payload.check(inbox.pop, received)
        received += 1
        stop = now
        next if stop < deadline

        peer << nil
        return [received, stop]
      end
    end

    def start_pair(payload, started)
      player = Queue.new
      server = Queue.new
      [player, start_process(started) { play(payload, player, server) },
       start_process(started) { serve(payload, server, player) }]
    end

    def throughput(params, payload)
      started = Queue.new
      pairs = Array.new(params[:pairs]) { start_pair(payload, started) }
      wait_started(started, 2 * params[:pairs])
      start = now
      pairs.each { |player, *| player << (start + params[:seconds]) }
      results = pairs.map { |_, play, serve| [*play.value, serve.value] }
      per_pair = results.map { |played, _, served| played + served }
      Result.new(results.map { |_, stop, _| stop }.max - start, { messages: per_pair.sum, per_pair: })
    end

    def forward(rounds, payload, inbox, peer)
      rounds.times do
        hops, data = inbox.pop
        payload.check(data, hops)
        hops += 1
        peer << [hops, payload.make(hops)]
      end
    end

    def ring(params, payload)
      started = Queue.new
      inboxes = Array.new(params[:procs]) { Queue.new } # inboxes[0] is the main thread's
      threads = (1...params[:procs]).map do |i|
        start_process(started) { forward(params[:rounds], payload, inboxes[i], inboxes[(i + 1) % params[:procs]]) }
      end
      wait_started(started, params[:procs] - 1)
      start = now
      hops = laps = 0
      params[:rounds].times do
        inboxes[1] << [hops, payload.make(hops)]
        hops, data = inboxes[0].pop
        payload.check(data, hops)
        hops += 1
        laps += 1
      end
      elapsed = now - start
      threads.each(&:join)
      Result.new(elapsed, { laps:, hops: })
    end
  end
end
