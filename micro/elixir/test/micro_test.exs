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
    assert {:ok, :pingpong, %{warmup_s: 10}} = Micro.parse(~w(pingpong))
    assert {:ok, :pingpong, %{warmup_s: 0.25}} = Micro.parse(~w(pingpong --warmup-s 0.25))
    assert {:ok, :pingpong, %{warmup_s: +0.0}} = Micro.parse(~w(pingpong --warmup-s 0))
    # as Python's "%g" writes small and large numbers
    assert {:ok, :pingpong, %{warmup_s: 1.0e-5}} = Micro.parse(~w(pingpong --warmup-s 1e-05))
    assert {:ok, :throughput, %{seconds: 2.5e3}} = Micro.parse(~w(throughput --seconds 2.5e+03))
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
        ~w(throughput --seconds soon),
        ~w(pingpong --warmup-s -1),
        ~w(pingpong --warmup-s -0.5),
        ~w(pingpong --warmup-s soon),
        ~w(pingpong --warmup-s 1e),
        ~w(pingpong --warmup-s -1e-05),
        ~w(pingpong --warmup-s)
      ] do
    test "bad arguments: #{inspect(args)}" do
      assert {:usage, <<_, _::binary>>} = Micro.run(unquote(args))
    end
  end

  test "json" do
    assert IO.iodata_to_binary(Micro.json(%{d: :shared, a: [1, 2], b: %{c: 0.5}})) ==
             ~s({"a":[1,2],"b":{"c":0.5},"d":"shared"})

    assert IO.iodata_to_binary(Micro.json([true, false, []])) == "[true,false,[]]"
  end

  test "report" do
    {:ok, line} = Micro.run(~w(ring --procs 3 --rounds 5 --mode copy --warmup-s 0.2))
    text = IO.iodata_to_binary(line)

    for part <- [
          ~s("bench":"ring"),
          ~s("check":{"hops":15,"laps":5}),
          ~s("mode":"copy"),
          ~s("payload":"copied"),
          ~s("params":{"procs":3,"rounds":5,"size":5000}),
          ~s("warmup":{"iterations":),
          ~s("cpus":#{:erlang.system_info(:schedulers_online)})
        ] do
      assert text =~ part
    end
  end

  # The exit codes and streams of the real command line, in a fresh VM.
  @tag timeout: 60_000
  test "command line" do
    assert {"", 2} = command(~w(pingpong --size 0))
    assert {~s({"bench":"pingpong") <> _, 0} = command(~w(pingpong --rounds 3 --warmup-s 0.2))
    assert {"", 2} = command(~w(pingpong --warmup-s -1))
  end

  defp command(args) do
    ebin = Path.dirname(:code.which(Micro))
    script = ~S|exec elixir --erl "+S 1:1" -pa "$0" -e "Micro.main()" -- "$@" 2>/dev/null|
    System.cmd("sh", ["-c", script, ebin | args])
  end

  describe "steady?" do
    # The rule of spec/micro.md: at least 5 values, the last 5 within ±10% of
    # their median.
    for {series, want} <- [
          {[], false},
          {[1.0], false},
          {[1.0, 1.0, 1.0, 1.0], false},
          {[1.0, 1.0, 1.0, 1.0, 1.0], true},
          {[5, 5, 5, 5, 5], true},
          # only the last five count
          {[100.0, 1.0, 1.0, 1.0, 1.0, 1.0], true},
          {[1.0, 1.0, 1.0, 1.0, 1.0, 100.0], false},
          # ±10% of the median is inside, just beyond it is not
          {[10.0, 10.0, 10.0, 11.0, 9.0], true},
          {[10.0, 10.0, 10.0, 11.01, 9.0], false},
          {[10.0, 10.0, 10.0, 11.0, 8.99], false},
          # the median, not the mean nor the first or last value
          {[9.1, 10.9, 10.0, 9.5, 10.5], true},
          {[12.0, 8.0, 10.0, 10.5, 9.5], false},
          {[1.0, 10.0, 10.0, 10.0, 10.0], false},
          {[2.0e6, 4.1e6, 3.9e6, 4.0e6, 4.0e6, 3.8e6], true},
          # warming up: falling, then flat
          {[15.1, 13.0, 12.6, 12.4, 12.5, 12.3, 12.4], true},
          {[15.1, 13.0, 12.6, 12.4, 12.5], false},
          {[0.0, 0.0, 0.0, 0.0, 0.0], true}
        ] do
      test inspect(series) do
        assert Micro.Warmup.steady?(unquote(series)) == unquote(want)
      end
    end
  end

  defp warmup(args) do
    {:ok, bench, opts} = Micro.parse(args)
    {:ok, result} = Micro.Warmup.run(bench, opts)
    result
  end

  describe "warm-up" do
    for bench <- ~w(pingping pingpong spawn ring) do
      test "#{bench}: k values in the series" do
        args = ~w(#{unquote(bench)} --mode copy --size 100 --rounds 50 --procs 20 --warmup-s 0.2)
        %{warmup: warmup, check: check} = warmup(args)
        %{iterations: k, seconds: seconds, steady: steady, series: series} = warmup
        assert k >= 1
        assert length(series) == k
        assert Enum.all?(series, &(is_number(&1) and &1 > 0))
        assert seconds > 0
        assert Micro.Warmup.steady?(series) == steady
        # stopped at the first steady iteration, or by the clock
        refute Micro.Warmup.steady?(List.delete_at(series, -1))
        assert steady or seconds >= 0.2
        assert map_size(check) > 0
      end
    end

    test "--warmup-s 0 runs none" do
      assert %{warmup: %{iterations: 0, seconds: 0, steady: false, series: []}} =
               warmup(~w(pingpong --rounds 10 --warmup-s 0))

      {:ok, line} = Micro.run(~w(pingpong --rounds 10 --warmup-s 0))

      assert IO.iodata_to_binary(line) =~
               ~s("warmup":{"iterations":0,"seconds":0,"series":[],"steady":false})
    end

    test "spawn's memory and the others" do
      %{metric: metric, warmup: %{iterations: k}} = warmup(~w(spawn --procs 500 --warmup-s 0.1))
      assert k >= 1
      assert metric.rss_before_kb > 0 and metric.rss_peak_kb > 0
      assert is_integer(metric.bytes_per_process)
      assert metric.us_per_spawn > 0
    end

    # D = 0.3 s, but a warm-up iteration lasts 0.1 s: W = 0.01 allows one.
    test "throughput iterations of 0.1 s" do
      %{warmup: %{iterations: k, seconds: seconds}, elapsed_s: elapsed} =
        warmup(~w(throughput --seconds 0.3 --warmup-s 0.01))

      assert k == 1
      assert seconds >= 0.1 and seconds < 0.25
      assert elapsed >= 0.3
    end

    # pingpong's zero-byte payload fails in the bench process itself, once.
    test "a failing iteration fails the program" do
      {:ok, _, opts} = Micro.parse(~w(pingpong --mode copy --rounds 10 --warmup-s 1))

      ExUnit.CaptureLog.capture_log(fn ->
        assert {:error, {:badarg, _}} = Micro.Warmup.run(:pingpong, %{opts | size: 0})
      end)
    end
  end

  # Every process of an iteration is gone when it returns. At most as many as before: a process
  # of an earlier test may still have been exiting when they were counted.
  test "no process outlives its bench" do
    {:ok, _, opts} = Micro.parse(~w(pingpong --mode copy --size 100 --rounds 20 --procs 50))
    opts = %{opts | pairs: 3, seconds: 0.01}
    before = :erlang.system_info(:process_count)

    for bench <- [:pingping, :pingpong, :spawn, :throughput, :ring] do
      assert {:ok, _} = Micro.Bench.run(bench, opts)
    end

    assert :erlang.system_info(:process_count) <= before
  end
end
