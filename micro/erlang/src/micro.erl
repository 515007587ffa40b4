%% Command line of the micro-benchmarks (spec/micro.md):
%%   erl +S N:N -noshell -pa ebin -s micro main -extra BENCH [--mode M] [--size S] ...
%% prints one JSON line on stdout and halts with 0, 2 for bad arguments, 1 when
%% the benchmark fails.
-module(micro).

-export([main/0, run/1, parse/1, json/1]).

-define(USAGE,
    "usage: pingping|pingpong|spawn|throughput|ring [--mode idiomatic|copy] [--size S] "
    "[--rounds R] [--procs N] [--pairs P] [--seconds D] [--warmup-s W]"
).

-spec main() -> no_return().
main() ->
    %% stdout carries only the JSON line: the runtime's own reports (such as
    %% "Too many processes") go to stderr.
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}}),
    Status =
        case run(init:get_plain_arguments()) of
            {ok, Line} ->
                io:put_chars([Line, $\n]),
                0;
            {usage, Message} ->
                io:put_chars(standard_error, [Message, $\n]),
                2;
            {failed, Reason} ->
                io:format(standard_error, "benchmark failed: ~ts~n", [explain(Reason)]),
                1
        end,
    erlang:halt(Status).

explain({system_limit, _Stack}) ->
    io_lib:format("system_limit: cannot create more than ~b processes (erl +P)", [
        erlang:system_info(process_limit)
    ]);
explain(Reason) ->
    io_lib:format("~0tp", [Reason]).

-spec run([string()]) -> {ok, iodata()} | {usage, string()} | {failed, term()}.
run(Args) ->
    case parse(Args) of
        {ok, Bench, Opts} ->
            case micro_warmup:run(Bench, Opts) of
                {ok, Result} -> {ok, json(report(Bench, Opts, Result))};
                {error, Reason} -> {failed, Reason}
            end;
        {error, Message} ->
            {usage, Message}
    end.

report(Bench, #{mode := Mode} = Opts, Result) ->
    Result#{
        bench => Bench,
        mode => Mode,
        payload =>
            case Mode of
                idiomatic -> shared;
                copy -> copied
            end,
        params => maps:with(params(Bench), Opts),
        runtime => iolist_to_binary([
            "Erlang/OTP ",
            erlang:system_info(otp_release),
            " (erts ",
            erlang:system_info(version),
            ")"
        ]),
        cpus => erlang:system_info(schedulers_online)
    }.

params(pingping) -> [size, rounds];
params(pingpong) -> [size, rounds];
params(spawn) -> [procs];
params(throughput) -> [pairs, size, seconds];
params(ring) -> [procs, size, rounds].

-spec parse([string()]) -> {ok, micro_bench:bench(), micro_bench:opts()} | {error, string()}.
parse([]) ->
    {error, ?USAGE};
parse([Name | Rest]) ->
    Defaults = #{
        mode => idiomatic,
        size => 5000,
        rounds => 10000,
        procs => 1000,
        pairs => 1,
        seconds => 1,
        warmup_s => 10
    },
    try
        Bench = bench(Name),
        case {Bench, options(Rest, Defaults)} of
            {ring, #{procs := 1}} -> throw("ring needs --procs >= 2");
            {_, Opts} -> {ok, Bench, Opts}
        end
    catch
        throw:Message -> {error, lists:flatten(Message)}
    end.

bench("pingping") -> pingping;
bench("pingpong") -> pingpong;
bench("spawn") -> spawn;
bench("throughput") -> throughput;
bench("ring") -> ring;
bench(Name) -> throw(["unknown bench '", Name, "'; ", ?USAGE]).

options([], Opts) ->
    Opts;
options(["--" ++ Name, Value | Rest], Opts) ->
    options(Rest, option(Name, Value, Opts));
options(["--" ++ Name], _Opts) ->
    throw(["missing value for --", Name]);
options([Arg | _], _Opts) ->
    throw(["unexpected argument '", Arg, "'; ", ?USAGE]).

option("mode", "idiomatic", Opts) ->
    Opts#{mode => idiomatic};
option("mode", "copy", Opts) ->
    Opts#{mode => copy};
option("mode", Value, _Opts) ->
    throw(["--mode must be idiomatic or copy, not '", Value, "'"]);
option("seconds", Value, Opts) ->
    case number(Value) of
        D when is_number(D), D > 0 -> Opts#{seconds => D};
        _ -> throw(["--seconds must be a number > 0, not '", Value, "'"])
    end;
option("warmup-s", Value, Opts) ->
    case number(Value) of
        W when is_number(W), W >= 0 -> Opts#{warmup_s => W};
        _ -> throw(["--warmup-s must be a number >= 0, not '", Value, "'"])
    end;
option(Name, Value, Opts) when
    Name =:= "size"; Name =:= "rounds"; Name =:= "procs"; Name =:= "pairs"
->
    try list_to_integer(Value) of
        N when N >= 1 -> Opts#{list_to_atom(Name) => N};
        _ -> throw(["--", Name, " must be an integer >= 1, not '", Value, "'"])
    catch
        error:badarg -> throw(["--", Name, " must be an integer >= 1, not '", Value, "'"])
    end;
option(Name, _Value, _Opts) ->
    throw(["unknown option --", Name, "; ", ?USAGE]).

%% An integer or a float as written by most tools: "2", "0.5", "1.5e3", and
%% also "1e-05" (Python's "%g"), which list_to_float/1 takes only as "1.0e-05".
number(Text) ->
    try
        list_to_integer(Text)
    catch
        error:badarg ->
            Float = re:replace(Text, "^([+-]?[0-9]+)([eE])", "\\1.0\\2", [{return, list}]),
            try
                list_to_float(Float)
            catch
                error:badarg -> not_a_number
            end
    end.

%% Just enough JSON for the report: maps with atom keys, lists, numbers,
%% booleans, and atoms or binaries that are plain ASCII without quotes or
%% backslashes.
-spec json(term()) -> iodata().
json(Map) when is_map(Map) ->
    Fields = [[json(Key), $:, json(Value)] || {Key, Value} <- lists:sort(maps:to_list(Map))],
    [${, lists:join($,, Fields), $}];
json(List) when is_list(List) ->
    [$[, lists:join($,, [json(Value) || Value <- List]), $]];
json(Bool) when is_boolean(Bool) ->
    atom_to_binary(Bool);
json(Atom) when is_atom(Atom) ->
    json(atom_to_binary(Atom));
json(Bin) when is_binary(Bin) ->
    [$", Bin, $"];
json(Int) when is_integer(Int) ->
    integer_to_binary(Int);
json(Float) when is_float(Float) ->
    float_to_binary(Float, [short]).
