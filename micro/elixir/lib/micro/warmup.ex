defmodule Micro.Warmup do
  @moduledoc """
  The warm-up of spec/micro.md: the bench repeated in-process, with the same
  parameters, until its metric is steady or W seconds have passed, then the
  measured run.
  """

  @type warmup :: %{
          iterations: non_neg_integer(),
          seconds: number(),
          steady: boolean(),
          series: [number()]
        }

  # How many of the last values the rule looks at, and how far from their
  # median each may lie.
  @window 5
  @tolerance 0.1

  @metric %{
    pingping: :us_per_message,
    pingpong: :us_per_round_trip,
    spawn: :us_per_spawn,
    throughput: :messages_per_s,
    ring: :us_per_hop
  }

  @memory [:rss_before_kb, :rss_peak_kb, :bytes_per_process]

  @doc """
  Warms up, then does the measured run; the result is the measured run's with
  a `:warmup` entry (and spawn's memory from the first warm-up iteration).
  """
  @spec run(Micro.Bench.bench(), Micro.Bench.opts()) ::
          {:ok, %{elapsed_s: float(), metric: map(), check: map(), warmup: warmup()}}
          | {:error, term()}
  def run(bench, %{warmup_s: limit} = opts) do
    with {:ok, warmup, first} <- warmup(bench, opts, limit),
         {:ok, measured} <- Micro.Bench.run(bench, opts) do
      {:ok, memory(first, Map.put(measured, :warmup, warmup))}
    end
  end

  @doc """
  The metric is steady once there are at least 5 values and the last 5 all
  lie within ±10% of their median. `series` is in the order of the iterations.
  """
  @spec steady?([number()]) :: boolean()
  def steady?(series) when length(series) >= @window do
    last = Enum.take(series, -@window)
    median = last |> Enum.sort() |> Enum.at(div(@window, 2))
    Enum.all?(last, &(abs(&1 - median) <= @tolerance * abs(median)))
  end

  def steady?(_series), do: false

  defp warmup(_bench, _opts, limit) when limit == 0 do
    {:ok, %{iterations: 0, seconds: 0, steady: false, series: []}, nil}
  end

  defp warmup(bench, opts, limit) do
    start = System.monotonic_time()
    deadline = start + System.convert_time_unit(round(limit * 1.0e9), :nanosecond, :native)
    iterate(bench, iteration(bench, opts), start, deadline, [], nil)
  end

  # Throughput's warm-up iteration lasts min(D, 0.1 s); every other bench's is
  # the measured run's work.
  defp iteration(:throughput, opts), do: %{opts | seconds: min(opts.seconds, 0.1)}
  defp iteration(_bench, opts), do: opts

  # `reversed` holds the values so far, the last first: the rule looks only at
  # the last five, so each step costs the same however long the warm-up runs.
  defp iterate(bench, opts, start, deadline, reversed, first) do
    with {:ok, %{metric: metric} = result} <- Micro.Bench.run(bench, opts) do
      series = [Map.fetch!(metric, @metric[bench]) | reversed]
      steady = series |> Enum.take(@window) |> Enum.reverse() |> steady?()
      now = System.monotonic_time()
      first = first || result

      if steady or now >= deadline do
        seconds = System.convert_time_unit(now - start, :native, :nanosecond) / 1.0e9

        warmup = %{
          iterations: length(series),
          seconds: seconds,
          steady: steady,
          series: Enum.reverse(series)
        }

        {:ok, warmup, first}
      else
        iterate(bench, opts, start, deadline, series, first)
      end
    end
  end

  # Spawn's memory is what a fresh runtime pays: the first warm-up iteration's
  # when there was one.
  defp memory(%{metric: %{rss_before_kb: _} = first}, %{metric: metric} = result) do
    %{result | metric: Map.merge(metric, Map.take(first, @memory))}
  end

  defp memory(_first, result), do: result
end
