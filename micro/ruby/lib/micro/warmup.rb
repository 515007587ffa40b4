# frozen_string_literal: true

module Micro
  # The warm-up of spec/micro.md: repeat the bench in-process until its metric is steady or the time is
  # up. The rule (steady?) and the loop (run) know nothing about threads: an iteration is a block that runs
  # the bench once, every thread of it joined when it returns, and gives back its result.
  module Warmup
    STEADY_LAST = 5 # steady: at least this many iterations, and the last this many ...
    STEADY_BAND = 0.10 # ... all within this fraction of their median
    THROUGHPUT_WARMUP_S = 0.1 # a throughput warm-up iteration lasts min(D, this)
    # The metric each iteration is judged by.
    METRIC = {
      'pingping' => :us_per_message, 'pingpong' => :us_per_round_trip, 'spawn' => :us_per_spawn,
      'throughput' => :messages_per_s, 'ring' => :us_per_hop
    }.freeze

    # A warm-up iteration reported counts other than the bench's parameters ask for.
    class CountMismatch < StandardError; end

    # What the warm-up did; first_result is the first iteration's result (spawn's memory comes from it).
    Report = Struct.new(:iterations, :seconds, :steady, :series, :first_result) do
      def document = { iterations:, seconds:, steady:, series: }
    end

    module_function

    # At least 5 values, and the last 5 all within ±10% of their median.
    def steady?(series)
      return false if series.size < STEADY_LAST

      last = series.last(STEADY_LAST)
      middle = median(last)
      last.all? { |value| (value - middle).abs <= STEADY_BAND * middle.abs }
    end

    def median(values)
      sorted = values.sort
      half = sorted.size / 2
      sorted.size.odd? ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2.0
    end

    # Runs the block until the values `value` takes from its results are steady, or until budget_s seconds
    # have passed since the first began (the iteration under way is finished). 0 runs none.
    def run(budget_s, value:, clock: -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) })
      return Report.new(0, 0, false, [], nil) unless budget_s.positive?

      series = []
      first = nil
      start = clock.call
      loop do
        result = yield
        first ||= result
        series << value.call(result)
        break if steady?(series) || clock.call - start >= budget_s
      end
      Report.new(series.size, clock.call - start, steady?(series), series, first)
    end

    # Raises CountMismatch unless check holds the counts a run of bench with params must report
    # (throughput: a positive total that its per_pair list, one count per pair, sums to).
    def verify_check(bench, params, check)
      return verify_throughput(params, check) if bench == 'throughput'

      expected = expected_check(bench, params)
      raise CountMismatch, "warm-up counts #{check}, expected #{expected}" unless check == expected
    end

    def expected_check(bench, params)
      rounds = params[:rounds]
      case bench
      when 'pingping' then { received: 2 * rounds }
      when 'pingpong' then { round_trips: rounds }
      when 'spawn' then { alive: params[:procs] }
      else { laps: rounds, hops: params[:procs] * rounds }
      end
    end

    def verify_throughput(params, check)
      per_pair = check[:per_pair]
      return if check[:messages].positive? && per_pair.size == params[:pairs] && per_pair.sum == check[:messages]

      raise CountMismatch, "warm-up counts #{check}, for #{params[:pairs]} pairs"
    end
  end
end
