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
    ?assertMatch({ok, ring, #{procs := 2}}, micro:parse(["ring", "--procs", "2"])).

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
        ["throughput", "--seconds", "soon"]
    ],
    [
        {string:join(Args, " "), ?_assertMatch({usage, [_ | _]}, micro:run(Args))}
     || Args <- Bad
    ].

json_test() ->
    ?assertEqual(
        <<"{\"a\":[1,2],\"b\":{\"c\":0.5},\"d\":\"shared\"}">>,
        iolist_to_binary(micro:json(#{d => shared, a => [1, 2], b => #{c => 0.5}}))
    ).

report_test() ->
    {ok, Line} = micro:run(["ring", "--procs", "3", "--rounds", "5", "--mode", "copy"]),
    Text = binary_to_list(iolist_to_binary(Line)),
    [
        ?assertNotEqual(nomatch, string:find(Text, Part))
     || Part <- [
            "\"bench\":\"ring\"",
            "\"check\":{\"hops\":15,\"laps\":5}",
            "\"mode\":\"copy\"",
            "\"payload\":\"copied\"",
            "\"params\":{\"procs\":3,\"rounds\":5,\"size\":5000}",
            "\"cpus\":" ++ integer_to_list(erlang:system_info(schedulers_online))
        ]
    ].

%% The exit codes and streams of the real command line, in a fresh VM.
command_line_test_() ->
    {timeout, 30, [
        ?_assertEqual({2, ""}, command(["pingpong", "--size", "0"])),
        ?_assertMatch({0, "{\"bench\":\"pingpong\"" ++ _}, command(["pingpong", "--rounds", "3"]))
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
