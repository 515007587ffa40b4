-module(micro_tests).

-include_lib("eunit/include/eunit.hrl").

opts(Mode, Overrides) ->
    {ok, _, Defaults} = micro:parse(["pingpong", "--mode", atom_to_list(Mode)]),
    maps:merge(Defaults, Overrides).

check(Bench, Mode, Overrides) ->
    {ok, #{elapsed_s := Elapsed, check := Check}} = micro_bench:run(Bench, opts(Mode, Overrides)),
    ?assert(Elapsed > 0),
    Check.

modes_test_() ->
    [
        {atom_to_list(Mode), fun() -> benches(Mode) end}
     || Mode <- [idiomatic, copy]
    ].

benches(Mode) ->
    %% 64 bytes travel as a heap binary (copied), 300 as a shared refc binary.
    [
        ?assertEqual(#{received => 2 * Rounds}, check(pingping, Mode, #{size => Size, rounds => Rounds}))
     || {Size, Rounds} <- [{1, 1}, {64, 300}, {300, 700}]
    ],
    [
        ?assertEqual(#{round_trips => Rounds}, check(pingpong, Mode, #{size => Size, rounds => Rounds}))
     || {Size, Rounds} <- [{1, 1}, {64, 300}, {300, 700}]
    ],
    ?assertEqual(#{alive => 2000}, check(spawn, Mode, #{procs => 2000})),
    #{messages := Messages, per_pair := PerPair} =
        check(throughput, Mode, #{pairs => 3, size => 100, seconds => 0.1}),
    ?assertEqual(3, length(PerPair)),
    ?assertEqual(Messages, lists:sum(PerPair)),
    %% Every pair plays at least one whole round trip: a ping and its pong.
    ?assert(lists:all(fun(Count) -> Count >= 2 andalso Count rem 2 =:= 0 end, PerPair)),
    [
        ?assertEqual(
            #{laps => Rounds, hops => Procs * Rounds},
            check(ring, Mode, #{procs => Procs, size => 300, rounds => Rounds})
        )
     || {Procs, Rounds} <- [{2, 1}, {2, 300}, {50, 7}]
    ].

spawn_metric_test() ->
    {ok, #{metric := Metric}} = micro_bench:run(spawn, opts(idiomatic, #{procs => 1000})),
    #{rss_before_kb := Before, rss_peak_kb := Peak, bytes_per_process := PerProcess} = Metric,
    ?assert(Before > 0 andalso Peak > 0 andalso is_integer(PerProcess)),
    ?assert(maps:get(us_per_spawn, Metric) > 0).

%% A process that dies ends its bench with the reason instead of a hang: a
%% zero-byte payload cannot be built, and pingping builds it in its workers.
failing_worker_test() ->
    #{level := Level} = logger:get_primary_config(),
    ok = logger:set_primary_config(level, none),
    Outcome = micro_bench:run(pingping, opts(copy, #{size => 0, rounds => 10})),
    %% The crash reports reach the logger process asynchronously: let it take
    %% them while they are still silenced.
    _ = sys:get_state(logger),
    ok = logger:set_primary_config(level, Level),
    ?assertMatch({error, {badarg, _}}, Outcome).

fill_test() ->
    Bin = micro_bench:fill(300 band 255, 130),
    ?assertEqual(130, byte_size(Bin)),
    ?assertEqual([44], lists:usort(binary_to_list(Bin))).

parse_test() ->
    ?assertMatch(
        {ok, throughput, #{mode := copy, pairs := 4, seconds := 0.5, size := 5000}},
        micro:parse(["throughput", "--mode", "copy", "--pairs", "4", "--seconds", "0.5"])
    ),
    %% Options another bench uses are accepted and ignored.
    ?assertMatch({ok, spawn, #{procs := 3}}, micro:parse(["spawn", "--procs", "3", "--size", "9"])),
    ?assertMatch({ok, ring, #{procs := 2}}, micro:parse(["ring", "--procs", "2"])),
    ?assertMatch({ok, pingpong, #{warmup_s := 10}}, micro:parse(["pingpong"])),
    ?assertMatch({ok, pingpong, #{warmup_s := 0.25}}, micro:parse(["pingpong", "--warmup-s", "0.25"])),
    ?assertMatch({ok, pingpong, #{warmup_s := 0}}, micro:parse(["pingpong", "--warmup-s", "0"])),
    %% as Python's "%g" writes small and large numbers
    ?assertMatch({ok, pingpong, #{warmup_s := 1.0e-5}}, micro:parse(["pingpong", "--warmup-s", "1e-05"])),
    ?assertMatch({ok, throughput, #{seconds := 2.5e3}}, micro:parse(["throughput", "--seconds", "2.5e+03"])).

bad_arguments_test_() ->
    Bad = [
        [],
        ["nosuchbench"],
        ["pingpong", "--size", "0"],
        ["pingpong", "--rounds", "-3"],
        ["pingpong", "--size", "abc"],
        ["pingpong", "--size", "1.5"],
        ["pingpong", "--mode", "weird"],
        ["pingpong", "--bogus", "1"],
        ["pingpong", "--size"],
        ["pingpong", "extra"],
        ["ring", "--procs", "1"],
        ["throughput", "--seconds", "0"],
        ["throughput", "--seconds", "-1.5"],
        ["throughput", "--seconds", "soon"],
        ["pingpong", "--warmup-s", "-1"],
        ["pingpong", "--warmup-s", "-0.5"],
        ["pingpong", "--warmup-s", "soon"],
        ["pingpong", "--warmup-s", "1e"],
        ["pingpong", "--warmup-s", "-1e-05"],
        ["pingpong", "--warmup-s"]
    ],
    [
        {string:join(Args, " "), ?_assertMatch({usage, [_ | _]}, micro:run(Args))}
     || Args <- Bad
    ].

json_test() ->
    ?assertEqual(
        <<"{\"a\":[1,2],\"b\":{\"c\":0.5},\"d\":\"shared\"}">>,
        iolist_to_binary(micro:json(#{d => shared, a => [1, 2], b => #{c => 0.5}}))
    ),
    ?assertEqual(<<"[true,false,[]]">>, iolist_to_binary(micro:json([true, false, []]))).

report_test() ->
    {ok, Line} = micro:run(["ring", "--procs", "3", "--rounds", "5", "--mode", "copy", "--warmup-s", "0.2"]),
    Text = binary_to_list(iolist_to_binary(Line)),
    [
        ?assertNotEqual(nomatch, string:find(Text, Part))
     || Part <- [
            "\"bench\":\"ring\"",
            "\"check\":{\"hops\":15,\"laps\":5}",
            "\"mode\":\"copy\"",
            "\"payload\":\"copied\"",
            "\"params\":{\"procs\":3,\"rounds\":5,\"size\":5000}",
            "\"warmup\":{\"iterations\":",
            "\"cpus\":" ++ integer_to_list(erlang:system_info(schedulers_online))
        ]
    ].

%% The exit codes and streams of the real command line, in a fresh VM.
command_line_test_() ->
    {timeout, 30, [
        ?_assertEqual({2, ""}, command(["pingpong", "--size", "0"])),
        ?_assertMatch(
            {0, "{\"bench\":\"pingpong\"" ++ _}, command(["pingpong", "--rounds", "3", "--warmup-s", "0.2"])
        ),
        ?_assertEqual({2, ""}, command(["pingpong", "--warmup-s", "-1"]))
    ]}.

command(Args) ->
    Ebin = filename:dirname(code:which(micro)),
    Port = open_port(
        {spawn_executable, "/bin/sh"},
        [
            {args, ["-c", "exec erl +S 1:1 -noshell -pa \"$0\" -s micro main -extra \"$@\" 2>/dev/null", Ebin | Args]},
            exit_status,
            binary
        ]
    ),
    collect(Port, []).

collect(Port, Out) ->
    receive
        {Port, {data, Data}} -> collect(Port, [Out, Data]);
        {Port, {exit_status, Status}} -> {Status, binary_to_list(iolist_to_binary(Out))}
    end.

%% The steadiness rule of spec/micro.md: at least 5 values, the last 5 within
%% ±10% of their median.
steady_test_() ->
    Table = [
        {[], false},
        {[1.0], false},
        {[1.0, 1.0, 1.0, 1.0], false},
        {[1.0, 1.0, 1.0, 1.0, 1.0], true},
        {[5, 5, 5, 5, 5], true},
        %% only the last five count
        {[100.0, 1.0, 1.0, 1.0, 1.0, 1.0], true},
        {[1.0, 1.0, 1.0, 1.0, 1.0, 100.0], false},
        %% ±10% of the median is inside, just beyond it is not
        {[10.0, 10.0, 10.0, 11.0, 9.0], true},
        {[10.0, 10.0, 10.0, 11.01, 9.0], false},
        {[10.0, 10.0, 10.0, 11.0, 8.99], false},
        %% the median, not the mean nor the first or last value
        {[9.1, 10.9, 10.0, 9.5, 10.5], true},
        {[12.0, 8.0, 10.0, 10.5, 9.5], false},
        {[1.0, 10.0, 10.0, 10.0, 10.0], false},
        {[2.0e6, 4.1e6, 3.9e6, 4.0e6, 4.0e6, 3.8e6], true},
        %% warming up: falling, then flat
        {[15.1, 13.0, 12.6, 12.4, 12.5, 12.3, 12.4], true},
        {[15.1, 13.0, 12.6, 12.4, 12.5], false},
        {[0.0, 0.0, 0.0, 0.0, 0.0], true}
    ],
    [
        {lists:flatten(io_lib:format("~w", [Series])), ?_assertEqual(Want, micro_warmup:steady(Series))}
     || {Series, Want} <- Table
    ].

warmup(Args) ->
    {ok, Bench, Opts} = micro:parse(Args),
    {ok, Result} = micro_warmup:run(Bench, Opts),
    Result.

warmup_test_() ->
    {timeout, 60, [
        {"k values in the series", fun warmup_series/0},
        {"--warmup-s 0 runs none", fun no_warmup/0},
        {"spawn's memory and the others", fun warmup_spawn/0},
        {"throughput iterations of 0.1 s", fun warmup_throughput/0},
        {"a failing iteration fails the program", fun warmup_failure/0}
    ]}.

warmup_series() ->
    [
        begin
            #{warmup := #{iterations := K, seconds := S, steady := Steady, series := Series}, check := Check} =
                warmup([Bench, "--mode", "copy", "--size", "100", "--rounds", "50", "--procs", "20", "--warmup-s", "0.2"]),
            ?assert(K >= 1),
            ?assertEqual(K, length(Series)),
            ?assert(lists:all(fun(V) -> is_number(V) andalso V > 0 end, Series)),
            ?assert(S > 0),
            ?assertEqual(micro_warmup:steady(Series), Steady),
            %% stopped at the first steady iteration, or by the clock
            ?assert(not micro_warmup:steady(lists:droplast(Series))),
            ?assert(Steady orelse S >= 0.2),
            ?assert(map_size(Check) > 0)
        end
     || Bench <- ["pingping", "pingpong", "spawn", "ring"]
    ].

no_warmup() ->
    ?assertMatch(
        #{warmup := #{iterations := 0, seconds := 0, steady := false, series := []}},
        warmup(["pingpong", "--rounds", "10", "--warmup-s", "0"])
    ),
    {ok, Line} = micro:run(["pingpong", "--rounds", "10", "--warmup-s", "0"]),
    ?assertNotEqual(
        nomatch,
        string:find(
            iolist_to_binary(Line), <<"\"warmup\":{\"iterations\":0,\"seconds\":0,\"series\":[],\"steady\":false}">>
        )
    ).

warmup_spawn() ->
    #{metric := Metric, warmup := #{iterations := K}} = warmup(["spawn", "--procs", "500", "--warmup-s", "0.1"]),
    ?assert(K >= 1),
    #{rss_before_kb := Before, rss_peak_kb := Peak, bytes_per_process := PerProcess, us_per_spawn := Us} = Metric,
    ?assert(Before > 0 andalso Peak > 0 andalso is_integer(PerProcess) andalso Us > 0).

%% D = 0.3 s, but a warm-up iteration lasts 0.1 s: W = 0.01 allows one.
warmup_throughput() ->
    #{warmup := #{iterations := K, seconds := S}, elapsed_s := Elapsed} =
        warmup(["throughput", "--seconds", "0.3", "--warmup-s", "0.01"]),
    ?assertEqual(1, K),
    ?assert(S >= 0.1 andalso S < 0.25),
    ?assert(Elapsed >= 0.3).

warmup_failure() ->
    #{level := Level} = logger:get_primary_config(),
    ok = logger:set_primary_config(level, none),
    %% pingpong's zero-byte payload fails in the bench process itself, once.
    {ok, pingpong, Opts} = micro:parse(["pingpong", "--mode", "copy", "--rounds", "10", "--warmup-s", "1"]),
    Outcome = micro_warmup:run(pingpong, Opts#{size => 0}),
    _ = sys:get_state(logger),
    ok = logger:set_primary_config(level, Level),
    ?assertMatch({error, {badarg, _}}, Outcome).

%% Every process of an iteration is gone when it returns.
gone_test() ->
    Before = erlang:system_info(process_count),
    [
        {ok, _} = micro_bench:run(Bench, opts(copy, #{size => 100, rounds => 20, procs => 50, pairs => 3, seconds => 0.01}))
     || Bench <- [pingping, pingpong, spawn, throughput, ring]
    ],
    ?assertEqual(Before, erlang:system_info(process_count)).
