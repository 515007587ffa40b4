defmodule Micro do
  @moduledoc """
  Command line of the micro-benchmarks (spec/micro.md):

      elixir --erl "+S N:N" -pa _build/prod/lib/micro/ebin -e "Micro.main()" -- BENCH [--mode M] ...

  prints one JSON line on stdout and halts with 0, 2 for bad arguments, 1 when
  the benchmark fails.
  """

  @usage "usage: pingping|pingpong|spawn|throughput|ring [--mode idiomatic|copy] [--size S] " <>
           "[--rounds R] [--procs N] [--pairs P] [--seconds D] [--warmup-s W]"

  @benches %{
    "pingping" => :pingping,
    "pingpong" => :pingpong,
    "spawn" => :spawn,
    "throughput" => :throughput,
    "ring" => :ring
  }

  @params %{
    pingping: [:size, :rounds],
    pingpong: [:size, :rounds],
    spawn: [:procs],
    throughput: [:pairs, :size, :seconds],
    ring: [:procs, :size, :rounds]
  }

  @switches [
    mode: :string,
    size: :integer,
    rounds: :integer,
    procs: :integer,
    pairs: :integer,
    seconds: :float,
    warmup_s: :float
  ]

  @defaults %{
    mode: :idiomatic,
    size: 5000,
    rounds: 10000,
    procs: 1000,
    pairs: 1,
    seconds: 1,
    warmup_s: 10
  }

  @spec main([String.t()]) :: no_return()
  def main(args \\ System.argv()) do
    # stdout carries only the JSON line: the runtime's own reports (such as
    # "Too many processes") go to stderr.
    Logger.configure_backend(:console, device: :standard_error)

    status =
      case run(args) do
        {:ok, line} ->
          IO.puts(line)
          0

        {:usage, message} ->
          IO.puts(:stderr, message)
          2

        {:failed, reason} ->
          IO.puts(:stderr, "benchmark failed: " <> explain(reason))
          1
      end

    System.halt(status)
  end

  defp explain({:system_limit, _stack}) do
    "system_limit: cannot create more than #{:erlang.system_info(:process_limit)} processes (erl +P)"
  end

  defp explain(reason), do: inspect(reason)

  @spec run([String.t()]) :: {:ok, iodata()} | {:usage, String.t()} | {:failed, term()}
  def run(args) do
    with {:ok, bench, opts} <- parse(args),
         {:ok, result} <- Micro.Warmup.run(bench, opts) do
      {:ok, json(report(bench, opts, result))}
    else
      {:error, message} when is_binary(message) -> {:usage, message}
      {:error, reason} -> {:failed, reason}
    end
  end

  defp report(bench, %{mode: mode} = opts, result) do
    Map.merge(result, %{
      bench: bench,
      mode: mode,
      payload: if(mode == :idiomatic, do: :shared, else: :copied),
      params: Map.take(opts, @params[bench]),
      runtime:
        "Elixir #{System.version()} on Erlang/OTP #{System.otp_release()} " <>
          "(erts #{:erlang.system_info(:version)})",
      cpus: :erlang.system_info(:schedulers_online)
    })
  end

  @spec parse([String.t()]) ::
          {:ok, Micro.Bench.bench(), Micro.Bench.opts()} | {:error, String.t()}
  def parse(args) do
    case OptionParser.parse(args, strict: @switches) do
      {_, _, [invalid | _]} ->
        {:error, invalid(invalid)}

      {switches, [name], []} when is_map_key(@benches, name) ->
        Enum.reduce_while(switches, {:ok, @benches[name], @defaults}, &option/2)
        |> ring_needs_two()

      {_, [name], []} ->
        {:error, "unknown bench '#{name}'; #{@usage}"}

      {_, _, []} ->
        {:error, @usage}
    end
  end

  # How each switch is written: OptionParser takes --warmup-s for warmup_s.
  @names Map.new(@switches, fn {name, _} ->
           {name, "--" <> String.replace(Atom.to_string(name), "_", "-")}
         end)
  @known Map.new(@names, fn {name, switch} -> {switch, name} end)

  defp invalid({switch, nil}) when is_map_key(@known, switch), do: "missing value for #{switch}"
  defp invalid({switch, nil}), do: "unknown option #{switch}; #{@usage}"
  defp invalid({switch, value}), do: "#{switch} must be #{bound(@known[switch])}, not '#{value}'"

  defp bound(:seconds), do: "a number > 0"
  defp bound(:warmup_s), do: "a number >= 0"
  defp bound(_), do: "an integer >= 1"

  defp option({:mode, mode}, {:ok, bench, opts}) when mode in ["idiomatic", "copy"] do
    {:cont, {:ok, bench, %{opts | mode: String.to_existing_atom(mode)}}}
  end

  defp option({:mode, mode}, _) do
    {:halt, {:error, "--mode must be idiomatic or copy, not '#{mode}'"}}
  end

  defp option({:seconds, seconds}, {:ok, bench, opts}) when seconds > 0 do
    {:cont, {:ok, bench, %{opts | seconds: seconds}}}
  end

  defp option({:warmup_s, warmup}, {:ok, bench, opts}) when warmup >= 0 do
    {:cont, {:ok, bench, %{opts | warmup_s: warmup}}}
  end

  defp option({name, value}, {:ok, bench, opts})
       when name not in [:seconds, :warmup_s] and value >= 1 do
    {:cont, {:ok, bench, %{opts | name => value}}}
  end

  defp option({name, value}, _) do
    {:halt, {:error, "#{@names[name]} must be #{bound(name)}, not '#{value}'"}}
  end

  defp ring_needs_two({:ok, :ring, %{procs: 1}}), do: {:error, "ring needs --procs >= 2"}
  defp ring_needs_two(parsed), do: parsed

  @doc """
  Just enough JSON for the report: maps with atom keys, lists, numbers,
  booleans, and atoms or strings that are plain ASCII without quotes or
  backslashes.
  """
  @spec json(term()) :: iodata()
  def json(map) when is_map(map) do
    fields = map |> Enum.sort() |> Enum.map(fn {key, value} -> [json(key), ?:, json(value)] end)
    [?{, Enum.intersperse(fields, ?,), ?}]
  end

  def json(list) when is_list(list),
    do: [?[, list |> Enum.map(&json/1) |> Enum.intersperse(?,), ?]]

  def json(bool) when is_boolean(bool), do: Atom.to_string(bool)
  def json(atom) when is_atom(atom), do: json(Atom.to_string(atom))
  def json(string) when is_binary(string), do: [?", string, ?"]
  def json(int) when is_integer(int), do: Integer.to_string(int)
  def json(float) when is_float(float), do: Float.to_string(float)
end
