# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/micro'

# The steadiness rule and the warm-up loop, without threads: fake iterations and a fake clock.
class WarmupTest < Minitest::Test
  # [series, steady?]: at least 5 values, the last 5 within ±10% of their median.
  STEADY = [
    [[], false],
    [[1, 1, 1, 1], false],
    [[1, 1, 1, 1, 1], true],
    [[50, 1, 1, 1, 1, 1], true],
    [[1, 1, 1, 1, 1, 50], false],
    [[100, 110, 90, 100, 100], true],
    [[100, 111, 100, 100, 100], false],
    [[100, 89, 100, 100, 100], false],
    [[95, 105, 100, 104, 96], true],
    [[100, 100, 100, 130, 130], false],
    [[100, 100, 104, 108, 109], true],
    [[0.2, 0.21, 0.19, 0.2, 0.2], true],
    [[0, 0, 0, 0, 0], true]
  ].freeze
  Result = Micro::Benches::Result

  def params(**changes) = Micro::CLI::DEFAULTS.merge(changes)

  # A clock that moves by step at every reading.
  def fake_clock(step)
    ticks = 0
    -> { (ticks += 1) * step }
  end

  # A bench that returns the given results in turn and records the parameters of each run.
  def fake_bench(results, seen = [])
    lambda do |_bench, params|
      seen << params
      results.shift
    end
  end

  def test_the_rule
    STEADY.each { |series, steady| assert_equal steady, Micro::Warmup.steady?(series), series.inspect }
  end

  def test_stops_once_steady
    values = [9, 5, 3, 2, 2, 2, 2, 2, 7, 7]
    report = Micro::Warmup.run(1000, value: :itself.to_proc, clock: fake_clock(1)) { values.shift }
    assert_equal [9, 5, 3, 2, 2, 2, 2, 2], report.series
    assert_equal [8, true, 9], [report.iterations, report.steady, report.first_result]
  end

  def test_stops_when_the_time_is_up_after_the_iteration_under_way
    values = [10, 20, 30, 40]
    # 0.25 s per clock reading: the second look after the start sees 0.5 s >= 0.4 s.
    report = Micro::Warmup.run(0.4, value: :itself.to_proc, clock: fake_clock(0.25)) { values.shift }
    assert_equal({ iterations: 2, seconds: 0.75, steady: false, series: [10, 20] }, report.document)
  end

  def test_none_with_zero_seconds
    calls = 0
    report = Micro::Warmup.run(0.0, value: :itself.to_proc) { calls += 1 }
    assert_equal({ iterations: 0, seconds: 0, steady: false, series: [] }, report.document)
    assert_equal [nil, 0], [report.first_result, calls]
  end

  def test_counts_are_checked
    Micro::Warmup.verify_check('ring', params(procs: 3, rounds: 4), { laps: 4, hops: 12 })
    Micro::Warmup.verify_check('throughput', params(pairs: 2), { messages: 6, per_pair: [2, 4] })
    [
      ['ring', params(procs: 3, rounds: 4), { laps: 4, hops: 11 }],
      ['pingping', params(rounds: 4), { received: 7 }],
      ['pingpong', params(rounds: 4), { round_trips: 3 }],
      ['spawn', params(procs: 4), { alive: 3 }],
      ['throughput', params(pairs: 2), { messages: 6, per_pair: [6] }],
      ['throughput', params(pairs: 1), { messages: 0, per_pair: [0] }]
    ].each do |bench, params, check|
      assert_raises(Micro::Warmup::CountMismatch, check.inspect) { Micro::Warmup.verify_check(bench, params, check) }
    end
  end

  def test_a_wrong_count_in_an_iteration_fails
    bench = fake_bench([Result.new(1.0, { round_trips: 9 })])
    assert_raises(Micro::Warmup::CountMismatch) { Micro::CLI.session('pingpong', params(rounds: 10), bench) }
  end

  def test_spawn_memory_comes_from_the_first_iteration
    # Five warm-up iterations at 1 s (steady), then the measured run at 2 s.
    results = (1..5).map { |i| Result.new(1.0, { alive: 10 }, [100 * i, 200 * i]) }
    results << Result.new(2.0, { alive: 10 }, [900, 1900])
    run = params(procs: 10, warmup_s: 100.0)
    warmup, measured = Micro::CLI.session('spawn', run, fake_bench(results))
    assert_equal [5, true, [1e5] * 5], [warmup.iterations, warmup.steady, warmup.series]
    doc = Micro::CLI.document('spawn', run, measured, warmup)
    assert_equal({ us_per_spawn: 2e5, bytes_per_process: 10_240.0, rss_before_kb: 100, rss_peak_kb: 200 },
                 doc[:metric])
    assert_equal [2.0, { alive: 10 }], doc.values_at(:elapsed_s, :check)
  end

  def test_throughput_iterations_last_min_d_and_a_tenth
    { 3.0 => 0.1, 0.05 => 0.05 }.each do |seconds, warm|
      seen = []
      results = Array.new(6) { Result.new(0.1, { messages: 2, per_pair: [2] }) }
      warmup, = Micro::CLI.session('throughput', params(pairs: 1, seconds:, warmup_s: 100.0),
                                   fake_bench(results, seen))
      assert warmup.steady
      assert_equal(([warm] * 5) + [seconds], seen.map { |run| run[:seconds] })
    end
  end
end
