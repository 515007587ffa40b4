%% The warm-up of spec/micro.md: the bench repeated in-process, with the same
%% parameters, until its metric is steady or W seconds have passed, then the
%% measured run.
-module(micro_warmup).

-export([run/2, steady/1]).
-export_type([warmup/0]).

-type warmup() :: #{
    iterations := non_neg_integer(),
    seconds := number(),
    steady := boolean(),
    series := [number()]
}.

%% How many of the last values the rule looks at, and how far from their
%% median each may lie.
-define(WINDOW, 5).
-define(TOLERANCE, 0.1).

%% Warms up, then does the measured run; the result is the measured run's with
%% a `warmup` entry (and spawn's memory from the first warm-up iteration).
-spec run(micro_bench:bench(), micro_bench:opts()) ->
    {ok, #{elapsed_s := float(), metric := map(), check := map(), warmup := warmup()}}
    | {error, term()}.
run(Bench, #{warmup_s := Limit} = Opts) ->
    case warmup(Bench, Opts, Limit) of
        {ok, Warmup, First} ->
            case micro_bench:run(Bench, Opts) of
                {ok, Measured} -> {ok, memory(First, Measured#{warmup => Warmup})};
                {error, _} = Error -> Error
            end;
        {error, _} = Error ->
            Error
    end.

%% The metric is steady once there are at least 5 values and the last 5 all
%% lie within ±10% of their median. Series is in the order of the iterations.
-spec steady([number()]) -> boolean().
steady(Series) when length(Series) >= ?WINDOW ->
    Last = lists:nthtail(length(Series) - ?WINDOW, Series),
    Median = lists:nth((?WINDOW + 1) div 2, lists:sort(Last)),
    lists:all(fun(Value) -> abs(Value - Median) =< ?TOLERANCE * abs(Median) end, Last);
steady(_Series) ->
    false.

warmup(_Bench, _Opts, Limit) when Limit == 0 ->
    {ok, #{iterations => 0, seconds => 0, steady => false, series => []}, none};
warmup(Bench, Opts, Limit) ->
    Start = erlang:monotonic_time(),
    Deadline = Start + erlang:convert_time_unit(round(Limit * 1.0e9), nanosecond, native),
    iterate(Bench, iteration(Bench, Opts), Start, Deadline, [], none).

%% Throughput's warm-up iteration lasts min(D, 0.1 s); every other bench's is
%% the measured run's work.
iteration(throughput, #{seconds := Seconds} = Opts) -> Opts#{seconds => min(Seconds, 0.1)};
iteration(_Bench, Opts) -> Opts.

%% Reversed holds the values so far, the last first: the rule looks only at
%% the last five, so each step costs the same however long the warm-up runs.
iterate(Bench, Opts, Start, Deadline, Reversed, First) ->
    case micro_bench:run(Bench, Opts) of
        {ok, #{metric := Metric} = Result} ->
            Series = [maps:get(metric(Bench), Metric) | Reversed],
            Steady = steady(lists:reverse(lists:sublist(Series, ?WINDOW))),
            Now = erlang:monotonic_time(),
            Kept =
                case First of
                    none -> Result;
                    _ -> First
                end,
            case Steady orelse Now >= Deadline of
                true ->
                    Seconds = erlang:convert_time_unit(Now - Start, native, nanosecond) / 1.0e9,
                    Warmup = #{
                        iterations => length(Series),
                        seconds => Seconds,
                        steady => Steady,
                        series => lists:reverse(Series)
                    },
                    {ok, Warmup, Kept};
                false ->
                    iterate(Bench, Opts, Start, Deadline, Series, Kept)
            end;
        {error, _} = Error ->
            Error
    end.

metric(pingping) -> us_per_message;
metric(pingpong) -> us_per_round_trip;
metric(spawn) -> us_per_spawn;
metric(throughput) -> messages_per_s;
metric(ring) -> us_per_hop.

%% Spawn's memory is what a fresh runtime pays: the first warm-up iteration's
%% when there was one.
memory(#{metric := #{rss_before_kb := _} = FirstMetric}, #{metric := Metric} = Result) ->
    Memory = maps:with([rss_before_kb, rss_peak_kb, bytes_per_process], FirstMetric),
    Result#{metric => maps:merge(Metric, Memory)};
memory(_First, Result) ->
    Result.
