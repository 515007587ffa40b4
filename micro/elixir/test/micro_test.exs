defmodule MicroTest do
  use ExUnit.Case, async: false

  defp check(bench, mode, overrides) do
    {:ok, _, defaults} = Micro.parse(["pingpong", "--mode", Atom.to_string(mode)])

    {:ok, %{elapsed_s: elapsed, check: check}} =
      Micro.Bench.run(bench, Map.merge(defaults, overrides))

    assert elapsed > 0
    check
  end

  for mode <- [:idiomatic, :copy] do
    describe "#{mode} mode" do
      # 64 bytes travel as a heap binary (copied), 300 as a shared refc binary.
      test "pingping" do
        for {size, rounds} <- [{1, 1}, {64, 300}, {300, 700}] do
          assert check(:pingping, unquote(mode), %{size: size, rounds: rounds}) ==
                   %{received: 2 * rounds}
        end
      end

      test "pingpong" do
        for {size, rounds} <- [{1, 1}, {64, 300}, {300, 700}] do
          assert check(:pingpong, unquote(mode), %{size: size, rounds: rounds}) ==
                   %{round_trips: rounds}
        end
      end

      test "spawn" do
        assert check(:spawn, unquote(mode), %{procs: 2000}) == %{alive: 2000}
      end

      test "throughput" do
        %{messages: messages, per_pair: per_pair} =
          check(:throughput, unquote(mode), %{pairs: 3, size: 100, seconds: 0.1})

        assert length(per_pair) == 3
        assert Enum.sum(per_pair) == messages
        # Every pair plays at least one whole round trip: a ping and its pong.
        assert Enum.all?(per_pair, &(&1 >= 2 and rem(&1, 2) == 0))
      end

      test "ring" do
        for {procs, rounds} <- [{2, 1}, {2, 300}, {50, 7}] do
          assert check(:ring, unquote(mode), %{procs: procs, size: 300, rounds: rounds}) ==
                   %{laps: rounds, hops: procs * rounds}
        end
      end
    end
  end

  test "spawn reports its memory" do
    {:ok, _, opts} = Micro.parse(["spawn", "--procs", "1000"])
    {:ok, %{metric: metric}} = Micro.Bench.run(:spawn, opts)
    assert metric.rss_before_kb > 0 and metric.rss_peak_kb > 0
    assert is_integer(metric.bytes_per_process)
    assert metric.us_per_spawn > 0
  end

  # A process that dies ends its bench with the reason instead of a hang: a
  # zero-byte payload cannot be built, and pingping builds it in its workers.
  test "a failing worker fails the bench" do
    {:ok, _, opts} = Micro.parse(~w(pingping --mode copy --rounds 10))

    ExUnit.CaptureLog.capture_log(fn ->
      assert {:error, {:badarg, _}} = Micro.Bench.run(:pingping, %{opts | size: 0})
    end)
  end

  test "fill makes a buffer of one byte value" do
    bin = Micro.Bench.fill(rem(300, 256), 130)
    assert byte_size(bin) == 130
    assert bin == :binary.copy(<<44>>, 130)
  end

  test "parse" do
    assert {:ok, :throughput, %{mode: :copy, pairs: 4, seconds: 0.5, size: 5000}} =
             Micro.parse(~w(throughput --mode copy --pairs 4 --seconds 0.5))

    # Options another bench uses are accepted and ignored.
    assert {:ok, :spawn, %{procs: 3}} = Micro.parse(~w(spawn --procs 3 --size 9))
    assert {:ok, :ring, %{procs: 2}} = Micro.parse(~w(ring --procs 2))
  end

  for args <- [
        [],
        ~w(nosuchbench),
        ~w(pingpong --size 0),
        ~w(pingpong --rounds -3),
        ~w(pingpong --size abc),
        ~w(pingpong --size 1.5),
        ~w(pingpong --mode weird),
        ~w(pingpong --bogus 1),
        ~w(pingpong --size),
        ~w(pingpong extra),
        ~w(ring --procs 1),
        ~w(throughput --seconds 0),
        ~w(throughput --seconds -1.5),
        ~w(throughput --seconds soon)
      ] do
    test "bad arguments: #{inspect(args)}" do
      assert {:usage, <<_, _::binary>>} = Micro.run(unquote(args))
    end
  end

  test "json" do
    assert IO.iodata_to_binary(Micro.json(%{d: :shared, a: [1, 2], b: %{c: 0.5}})) ==
             ~s({"a":[1,2],"b":{"c":0.5},"d":"shared"})
  end

  test "report" do
    {:ok, line} = Micro.run(~w(ring --procs 3 --rounds 5 --mode copy))
    text = IO.iodata_to_binary(line)

    for part <- [
          ~s("bench":"ring"),
          ~s("check":{"hops":15,"laps":5}),
          ~s("mode":"copy"),
          ~s("payload":"copied"),
          ~s("params":{"procs":3,"rounds":5,"size":5000}),
          ~s("cpus":#{:erlang.system_info(:schedulers_online)})
        ] do
      assert text =~ part
    end
  end

  # The exit codes and streams of the real command line, in a fresh VM.
  @tag timeout: 60_000
  test "command line" do
    assert {"", 2} = command(~w(pingpong --size 0))
    assert {~s({"bench":"pingpong") <> _, 0} = command(~w(pingpong --rounds 3))
  end

  defp command(args) do
    ebin = Path.dirname(:code.which(Micro))
    script = ~S|exec elixir --erl "+S 1:1" -pa "$0" -e "Micro.main()" -- "$@" 2>/dev/null|
    System.cmd("sh", ["-c", script, ebin | args])
  end
end
