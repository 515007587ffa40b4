defmodule Micro.Bench do
  @moduledoc """
  The five benchmarks of spec/micro.md with plain processes: `spawn`/`spawn_link`,
  `send` and `receive`. Every count in `check` is counted by a process as the
  messages arrive.
  """

  @type bench :: :pingping | :pingpong | :spawn | :throughput | :ring
  @type opts :: %{
          mode: :idiomatic | :copy,
          size: pos_integer(),
          rounds: pos_integer(),
          procs: pos_integer(),
          pairs: pos_integer(),
          seconds: number(),
          warmup_s: number()
        }

  @doc """
  Runs one benchmark (one warm-up iteration, or the measured run) in a
  process of its own, linked to every process it creates: a worker that fails (a payload mismatch) takes the benchmark down
  with it, and the reason (that one, or the benchmark's own, such as a system
  limit) comes back here instead of leaving the caller waiting for a message
  that will never come. Every process the benchmark created is gone when it
  returns.
  """
  @spec run(bench(), opts()) ::
          {:ok, %{elapsed_s: float(), metric: map(), check: map()}} | {:error, term()}
  def run(bench, opts) do
    {pid, ref} = spawn_monitor(fn -> exit({:done, bench(bench, opts)}) end)

    receive do
      {:DOWN, ^ref, :process, ^pid, {:done, result}} -> {:ok, result}
      {:DOWN, ^ref, :process, ^pid, reason} -> {:error, reason}
    end
  end

  defp bench(:pingping, opts), do: pingping(opts)
  defp bench(:pingpong, opts), do: pingpong(opts)
  defp bench(:spawn, opts), do: spawn_dormant(opts)
  defp bench(:throughput, opts), do: throughput(opts)
  defp bench(:ring, opts), do: ring(opts)

  # Idiomatic mode: one binary, made before the clock starts and sent as it is
  # (over 64 bytes the BEAM shares it by reference count instead of copying).
  # Copy mode: a fresh binary for every send, filled with the sender's sequence
  # number, whose first and last bytes the receiver checks.
  defp payload(%{mode: :idiomatic, size: size}) do
    shared = fill(1, size)
    {fn _seq -> shared end, fn _bin, _seq -> :ok end}
  end

  defp payload(%{mode: :copy, size: size}) do
    {fn seq -> fill(rem(seq, 256), size) end, &check/2}
  end

  @doc """
  A fresh `size`-byte binary of `byte`, built by doubling: appending to a binary
  the process just built extends it in place, where `:binary.copy(<<byte>>, size)`
  costs several nanoseconds per byte.
  """
  @spec fill(byte(), pos_integer()) :: binary()
  def fill(byte, size), do: double(<<byte>>, size)

  defp double(bin, size) when 2 * byte_size(bin) >= size do
    rest = size - byte_size(bin)
    <<bin::binary, bin::binary-size(rest)>>
  end

  defp double(bin, size), do: double(<<bin::binary, bin::binary>>, size)

  defp check(<<first, _::binary>> = bin, seq) do
    want = rem(seq, 256)

    case {first, :binary.last(bin)} do
      {^want, ^want} -> :ok
      got -> exit({:payload_mismatch, %{expected: want, first_last: got, seq: seq}})
    end
  end

  # Intel MPI PingPing: both send at once, then both receive, R times.
  defp pingping(%{rounds: rounds} = opts) do
    {make, check} = payload(opts)
    main = self()

    worker = fn ->
      send(main, {:ready, self()})

      receive do
        {:go, peer} ->
          received = pingping_loop(peer, make, check, rounds, 0)
          send(main, {:done, received, clock()})
      end
    end

    a = spawn_link(worker)
    b = spawn_link(worker)
    await_ready([a, b])
    t0 = clock()
    send(a, {:go, b})
    send(b, {:go, a})
    {received, t1} = collect_done(2, 0, t0)
    await_gone([a, b])
    result(t0, t1, &%{us_per_message: &1 * 1.0e6 / rounds}, %{received: received})
  end

  defp pingping_loop(_peer, _make, _check, rounds, rounds), do: rounds

  defp pingping_loop(peer, make, check, rounds, seq) do
    send(peer, {:ping, make.(seq)})

    receive do
      {:ping, bin} -> check.(bin, seq)
    end

    pingping_loop(peer, make, check, rounds, seq + 1)
  end

  defp collect_done(0, received, last), do: {received, last}

  defp collect_done(n, received, last) do
    receive do
      {:done, count, t} -> collect_done(n - 1, received + count, max(t, last))
    end
  end

  # Intel MPI PingPong: this process sends, a ponger answers, R round trips.
  defp pingpong(%{rounds: rounds} = opts) do
    {make, check} = payload(opts)
    main = self()

    ponger =
      spawn_link(fn ->
        send(main, {:ready, self()})
        ponger(main, make, check, 0)
      end)

    await_ready([ponger])
    t0 = clock()
    round_trips = pinger(ponger, make, check, &(&1 == rounds), 0)
    t1 = clock()
    send(ponger, {:stop, self()})

    receive do
      {:pings, _} -> :ok
    end

    await_gone([ponger])
    result(t0, t1, &%{us_per_round_trip: &1 * 1.0e6 / rounds}, %{round_trips: round_trips})
  end

  # Plays round trips until done?.(answers so far); returns the answers.
  defp pinger(ponger, make, check, done?, seq) do
    send(ponger, {:ping, make.(seq)})

    receive do
      {:pong, bin} -> check.(bin, seq)
    end

    if done?.(seq + 1) do
      seq + 1
    else
      pinger(ponger, make, check, done?, seq + 1)
    end
  end

  defp ponger(pinger, make, check, seq) do
    receive do
      {:ping, bin} ->
        check.(bin, seq)
        send(pinger, {:pong, make.(seq)})
        ponger(pinger, make, check, seq + 1)

      {:stop, from} ->
        send(from, {:pings, seq})
    end
  end

  # Valkov's pair throughput: P pinger/ponger pairs play until D seconds pass.
  defp throughput(%{pairs: pairs, seconds: seconds} = opts) do
    {make, check} = payload(opts)
    main = self()
    pingers = for index <- 1..pairs, do: spawn_link(fn -> pair(main, index, make, check) end)
    await_ready(pingers)
    t0 = clock()
    deadline = t0 + System.convert_time_unit(round(seconds * 1.0e9), :nanosecond, :native)
    Enum.each(pingers, &send(&1, {:go, deadline}))
    {counts, t1} = collect_pairs(pairs, %{}, t0)
    await_gone(pingers)
    per_pair = for index <- 1..pairs, do: Map.fetch!(counts, index)
    messages = Enum.sum(per_pair)
    result(t0, t1, &%{messages_per_s: messages / &1}, %{messages: messages, per_pair: per_pair})
  end

  defp pair(main, index, make, check) do
    me = self()
    ponger = spawn_link(fn -> ponger(me, make, check, 0) end)
    send(main, {:ready, me})

    receive do
      {:go, deadline} ->
        # A round trip that ends at or after the deadline is the pair's last.
        pongs = pinger(ponger, make, check, fn _ -> clock() >= deadline end, 0)
        stopped = clock()
        send(ponger, {:stop, me})

        receive do
          {:pings, pings} ->
            await_gone([ponger])
            send(main, {:pair, index, pings + pongs, stopped})
        end
    end
  end

  defp collect_pairs(0, counts, last), do: {counts, last}

  defp collect_pairs(n, counts, last) do
    receive do
      {:pair, index, count, t} ->
        collect_pairs(n - 1, Map.put(counts, index, count), max(t, last))
    end
  end

  # Valkov's spawn: N dormant processes, each signalling that it has started.
  # Plain spawn without a link, so each process is only what the runtime gives
  # it by default.
  defp spawn_dormant(%{procs: procs}) do
    main = self()

    dormant = fn ->
      send(main, :started)

      receive do
        :release -> send(main, :released)
      end
    end

    rss_before = rss_kb()
    t0 = clock()
    pids = spawn_n(dormant, procs, [])
    alive = count(:started, procs, 0)
    t1 = clock()
    rss_peak = rss_kb()
    Enum.each(pids, &send(&1, :release))
    count(:released, procs, 0)
    await_gone(pids)

    metric = fn elapsed ->
      %{
        us_per_spawn: elapsed * 1.0e6 / procs,
        bytes_per_process: round((rss_peak - rss_before) * 1024 / procs),
        rss_before_kb: rss_before,
        rss_peak_kb: rss_peak
      }
    end

    result(t0, t1, metric, %{alive: alive})
  end

  defp spawn_n(_fun, 0, pids), do: pids
  defp spawn_n(fun, n, pids), do: spawn_n(fun, n - 1, [spawn(fun) | pids])

  # Receives `expected` messages `tag`, counting them as they arrive.
  defp count(_tag, expected, expected), do: expected

  defp count(tag, expected, seen) do
    receive do
      ^tag -> count(tag, expected, seen + 1)
    end
  end

  # Varjão's SendRecv: this process and N-1 others in a ring pass one token.
  # Each process counts the hop as the token arrives and forwards it.
  defp ring(%{procs: procs, rounds: rounds} = opts) do
    {make, check} = payload(opts)
    main = self()

    nodes =
      Enum.reduce(2..procs, [main], fn _, [next | _] = acc ->
        node =
          spawn_link(fn ->
            send(main, {:ready, self()})
            ring_node(next, make, check)
          end)

        [node | acc]
      end)

    # In the order they were spawned, the order their messages arrive: each receive then finds
    # its own at the mailbox's head, where the reverse order scans the whole mailbox for each
    # (50,000 processes: 11 s, not 0.1 s).
    nodes |> List.delete_at(-1) |> Enum.reverse() |> await_ready()
    first = hd(nodes)
    t0 = clock()
    send(first, {:token, 0, make.(0)})
    {laps, hops} = ring_main(first, make, check, rounds, 0)
    t1 = clock()
    send(first, :stop)

    receive do
      :stop -> :ok
    end

    await_gone(List.delete_at(nodes, -1))

    result(t0, t1, &%{us_per_hop: &1 * 1.0e6 / (procs * rounds)}, %{laps: laps, hops: hops})
  end

  defp ring_node(next, make, check) do
    receive do
      {:token, hop, bin} ->
        check.(bin, hop)
        send(next, {:token, hop + 1, make.(hop + 1)})
        ring_node(next, make, check)

      :stop ->
        send(next, :stop)
    end
  end

  defp ring_main(first, make, check, rounds, laps) do
    receive do
      {:token, hop, bin} ->
        check.(bin, hop)

        case laps + 1 do
          ^rounds ->
            {rounds, hop + 1}

          done ->
            send(first, {:token, hop + 1, make.(hop + 1)})
            ring_main(first, make, check, rounds, done)
        end
    end
  end

  defp await_ready(pids) do
    Enum.each(pids, fn pid ->
      receive do
        {:ready, ^pid} -> :ok
      end
    end)
  end

  # Waits until every process in `pids` has exited, after the clock: the next
  # warm-up iteration, or the measured run, starts with none of them left. One
  # monitor at a time, so that the join of a million dormant processes needs no
  # memory beyond theirs.
  defp await_gone(pids) do
    Enum.each(pids, fn pid ->
      ref = Process.monitor(pid)

      receive do
        {:DOWN, ^ref, :process, ^pid, _} -> :ok
      end
    end)
  end

  defp clock, do: System.monotonic_time()

  # `metric` turns the elapsed seconds into the bench's metric map.
  defp result(t0, t1, metric, check) do
    elapsed = System.convert_time_unit(t1 - t0, :native, :nanosecond) / 1.0e9
    %{elapsed_s: elapsed, metric: metric.(elapsed), check: check}
  end

  defp rss_kb do
    [_, rest] = "/proc/self/status" |> File.read!() |> String.split("VmRSS:")
    [kb | _] = String.split(rest)
    String.to_integer(kb)
  end
end
