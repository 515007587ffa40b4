%% The five benchmarks of spec/micro.md, each with plain Erlang processes:
%% spawn/spawn_link, `!` and receive. Every count reported in `check` is
%% counted by a process as the messages arrive.
-module(micro_bench).

-export([run/2, fill/2]).
-export_type([bench/0, opts/0]).

-type bench() :: pingping | pingpong | spawn | throughput | ring.
-type opts() :: #{
    mode := idiomatic | copy,
    size := pos_integer(),
    rounds := pos_integer(),
    procs := pos_integer(),
    pairs := pos_integer(),
    seconds := number(),
    warmup_s := number()
}.

%% Runs one benchmark (one warm-up iteration, or the measured run) in a
%% process of its own, linked to every process it creates: a worker that fails (a payload mismatch) takes the benchmark down
%% with it, and the reason (that one, or the benchmark's own, such as a system
%% limit) comes back here instead of leaving the caller waiting for a message
%% that will never come. Every process the benchmark created is gone when it
%% returns.
-spec run(bench(), opts()) ->
    {ok, #{elapsed_s := float(), metric := map(), check := map()}} | {error, term()}.
run(Bench, Opts) ->
    {Pid, Ref} = spawn_monitor(fun() -> exit({done, bench(Bench, Opts)}) end),
    receive
        {'DOWN', Ref, process, Pid, {done, Result}} -> {ok, Result};
        {'DOWN', Ref, process, Pid, Reason} -> {error, Reason}
    end.

bench(pingping, Opts) -> pingping(Opts);
bench(pingpong, Opts) -> pingpong(Opts);
bench(spawn, Opts) -> spawn_procs(Opts);
bench(throughput, Opts) -> throughput(Opts);
bench(ring, Opts) -> ring(Opts).

%% Idiomatic mode: one binary, made before the clock starts and sent as it is
%% (over 64 bytes the BEAM shares it by reference count instead of copying).
%% Copy mode: a fresh binary for every send, filled with the sender's sequence
%% number, whose first and last bytes the receiver checks.
payload(#{mode := idiomatic, size := Size}) ->
    Shared = fill(1, Size),
    {fun(_Seq) -> Shared end, fun(_Bin, _Seq) -> ok end};
payload(#{mode := copy, size := Size}) ->
    {fun(Seq) -> fill(Seq band 255, Size) end, fun check/2}.

%% A fresh Size-byte binary of Byte, built by doubling: appending to a binary
%% the process just built extends it in place, where binary:copy(<<Byte>>, Size)
%% costs several nanoseconds per byte.
-spec fill(byte(), pos_integer()) -> binary().
fill(Byte, Size) ->
    double(<<Byte>>, Size).

double(Bin, Size) when 2 * byte_size(Bin) >= Size ->
    <<Bin/binary, Bin:(Size - byte_size(Bin))/binary>>;
double(Bin, Size) ->
    double(<<Bin/binary, Bin/binary>>, Size).

check(<<First, _/binary>> = Bin, Seq) ->
    Want = Seq band 255,
    case {First, binary:last(Bin)} of
        {Want, Want} -> ok;
        Got -> exit({payload_mismatch, #{expected => Want, first_last => Got, seq => Seq}})
    end.

%% Intel MPI PingPing: both send at once, then both receive, R times.
pingping(#{rounds := Rounds} = Opts) ->
    {Make, Check} = payload(Opts),
    Main = self(),
    Worker = fun() ->
        Main ! {ready, self()},
        receive
            {go, Peer} -> ok
        end,
        Received = pingping_loop(Peer, Make, Check, Rounds, 0),
        Main ! {done, Received, clock()}
    end,
    A = spawn_link(Worker),
    B = spawn_link(Worker),
    await_ready([A, B]),
    T0 = clock(),
    A ! {go, B},
    B ! {go, A},
    {Received, T1} = collect_done(2, 0, T0),
    await_gone([A, B]),
    result(T0, T1, fun(Elapsed) -> #{us_per_message => Elapsed * 1.0e6 / Rounds} end, #{
        received => Received
    }).

pingping_loop(_Peer, _Make, _Check, Rounds, Rounds) ->
    Rounds;
pingping_loop(Peer, Make, Check, Rounds, Seq) ->
    Peer ! {ping, Make(Seq)},
    receive
        {ping, Bin} -> Check(Bin, Seq)
    end,
    pingping_loop(Peer, Make, Check, Rounds, Seq + 1).

collect_done(0, Received, Last) ->
    {Received, Last};
collect_done(N, Received, Last) ->
    receive
        {done, Count, T} -> collect_done(N - 1, Received + Count, max(T, Last))
    end.

%% Intel MPI PingPong: this process sends, a ponger answers, R round trips.
pingpong(#{rounds := Rounds} = Opts) ->
    {Make, Check} = payload(Opts),
    Main = self(),
    Ponger = spawn_link(fun() ->
        Main ! {ready, self()},
        ponger(Main, Make, Check, 0)
    end),
    await_ready([Ponger]),
    T0 = clock(),
    RoundTrips = pinger(Ponger, Make, Check, fun(Answers) -> Answers =:= Rounds end, 0),
    T1 = clock(),
    Ponger ! {stop, self()},
    receive
        {pings, _} -> ok
    end,
    await_gone([Ponger]),
    result(T0, T1, fun(Elapsed) -> #{us_per_round_trip => Elapsed * 1.0e6 / Rounds} end, #{
        round_trips => RoundTrips
    }).

%% Plays round trips until Done(answers so far) holds; returns the answers.
pinger(Ponger, Make, Check, Done, Seq) ->
    Ponger ! {ping, Make(Seq)},
    receive
        {pong, Bin} -> Check(Bin, Seq)
    end,
    case Done(Seq + 1) of
        true -> Seq + 1;
        false -> pinger(Ponger, Make, Check, Done, Seq + 1)
    end.

ponger(Pinger, Make, Check, Seq) ->
    receive
        {ping, Bin} ->
            Check(Bin, Seq),
            Pinger ! {pong, Make(Seq)},
            ponger(Pinger, Make, Check, Seq + 1);
        {stop, From} ->
            From ! {pings, Seq}
    end.

%% Valkov's pair throughput: P pinger/ponger pairs play until D seconds pass.
throughput(#{pairs := Pairs, seconds := Seconds} = Opts) ->
    {Make, Check} = payload(Opts),
    Main = self(),
    Pingers = [
        spawn_link(fun() -> pair(Main, Index, Make, Check) end)
     || Index <- lists:seq(1, Pairs)
    ],
    await_ready(Pingers),
    T0 = clock(),
    Deadline = T0 + erlang:convert_time_unit(round(Seconds * 1.0e9), nanosecond, native),
    [Pinger ! {go, Deadline} || Pinger <- Pingers],
    {Counts, T1} = collect_pairs(Pairs, #{}, T0),
    await_gone(Pingers),
    PerPair = [maps:get(Index, Counts) || Index <- lists:seq(1, Pairs)],
    Messages = lists:sum(PerPair),
    result(T0, T1, fun(Elapsed) -> #{messages_per_s => Messages / Elapsed} end, #{
        messages => Messages, per_pair => PerPair
    }).

pair(Main, Index, Make, Check) ->
    Self = self(),
    Ponger = spawn_link(fun() -> ponger(Self, Make, Check, 0) end),
    Main ! {ready, Self},
    receive
        {go, Deadline} -> ok
    end,
    %% A round trip that ends at or after the deadline is the pair's last.
    Pongs = pinger(Ponger, Make, Check, fun(_) -> clock() >= Deadline end, 0),
    Stopped = clock(),
    Ponger ! {stop, Self},
    receive
        {pings, Pings} ->
            await_gone([Ponger]),
            Main ! {pair, Index, Pings + Pongs, Stopped}
    end.

collect_pairs(0, Counts, Last) ->
    {Counts, Last};
collect_pairs(N, Counts, Last) ->
    receive
        {pair, Index, Count, T} -> collect_pairs(N - 1, Counts#{Index => Count}, max(T, Last))
    end.

%% Valkov's spawn: N dormant processes, each signalling that it has started.
%% Plain spawn without a link, so each process is only what the runtime gives
%% it by default.
spawn_procs(#{procs := Procs}) ->
    Main = self(),
    Dormant = fun() ->
        Main ! started,
        receive
            release -> Main ! released
        end
    end,
    RssBefore = rss_kb(),
    T0 = clock(),
    Pids = spawn_n(Dormant, Procs, []),
    Alive = count(started, Procs, 0),
    T1 = clock(),
    RssPeak = rss_kb(),
    [Pid ! release || Pid <- Pids],
    count(released, Procs, 0),
    await_gone(Pids),
    Metric = fun(Elapsed) ->
        #{
            us_per_spawn => Elapsed * 1.0e6 / Procs,
            bytes_per_process => round((RssPeak - RssBefore) * 1024 / Procs),
            rss_before_kb => RssBefore,
            rss_peak_kb => RssPeak
        }
    end,
    result(T0, T1, Metric, #{alive => Alive}).

spawn_n(_Fun, 0, Pids) -> Pids;
spawn_n(Fun, N, Pids) -> spawn_n(Fun, N - 1, [spawn(Fun) | Pids]).

%% Receives Expected messages Tag, counting them as they arrive.
count(_Tag, Expected, Expected) ->
    Expected;
count(Tag, Expected, Seen) ->
    receive
        Tag -> count(Tag, Expected, Seen + 1)
    end.

%% Varjão's SendRecv: this process and N-1 others in a ring pass one token.
%% Each process counts the hop as the token arrives and forwards it.
ring(#{procs := Procs, rounds := Rounds} = Opts) ->
    {Make, Check} = payload(Opts),
    Main = self(),
    Nodes = lists:foldl(
        fun(_, [Next | _] = Acc) ->
            [spawn_link(fun() -> Main ! {ready, self()}, ring_node(Next, Make, Check) end) | Acc]
        end,
        [Main],
        lists:seq(2, Procs)
    ),
    %% In the order they were spawned, the order their messages arrive: each
    %% receive then finds its own at the mailbox's head, where the reverse order
    %% scans the whole mailbox for each (50,000 processes: 11 s, not 0.1 s).
    await_ready(lists:reverse(lists:droplast(Nodes))),
    First = hd(Nodes),
    T0 = clock(),
    First ! {token, 0, Make(0)},
    {Laps, Hops} = ring_main(First, Make, Check, Rounds, 0),
    T1 = clock(),
    First ! stop,
    receive
        stop -> ok
    end,
    await_gone(lists:droplast(Nodes)),
    result(T0, T1, fun(Elapsed) -> #{us_per_hop => Elapsed * 1.0e6 / (Procs * Rounds)} end, #{
        laps => Laps, hops => Hops
    }).

ring_node(Next, Make, Check) ->
    receive
        {token, Hop, Bin} ->
            Check(Bin, Hop),
            Next ! {token, Hop + 1, Make(Hop + 1)},
            ring_node(Next, Make, Check);
        stop ->
            Next ! stop
    end.

ring_main(First, Make, Check, Rounds, Laps) ->
    receive
        {token, Hop, Bin} ->
            Check(Bin, Hop),
            case Laps + 1 of
                Rounds ->
                    {Rounds, Hop + 1};
                Done ->
                    First ! {token, Hop + 1, Make(Hop + 1)},
                    ring_main(First, Make, Check, Rounds, Done)
            end
    end.

await_ready(Pids) ->
    [
        receive
            {ready, Pid} -> ok
        end
     || Pid <- Pids
    ],
    ok.

%% Waits until every process in Pids has exited, after the clock: the next
%% warm-up iteration, or the measured run, starts with none of them left. One
%% monitor at a time, so that the join of a million dormant processes needs no
%% memory beyond theirs.
await_gone(Pids) ->
    lists:foreach(
        fun(Pid) ->
            Ref = erlang:monitor(process, Pid),
            receive
                {'DOWN', Ref, process, Pid, _} -> ok
            end
        end,
        Pids
    ).

clock() -> erlang:monotonic_time().

%% Metric turns the elapsed seconds into the bench's metric map.
result(T0, T1, Metric, Check) ->
    Elapsed = erlang:convert_time_unit(T1 - T0, native, nanosecond) / 1.0e9,
    #{elapsed_s => Elapsed, metric => Metric(Elapsed), check => Check}.

rss_kb() ->
    {ok, Status} = file:read_file("/proc/self/status"),
    [_, Rest] = binary:split(Status, <<"VmRSS:">>),
    [Kb | _] = string:lexemes(Rest, " \t\n"),
    binary_to_integer(Kb).
