# frozen_string_literal: true

require 'json'

module Micro
  # Reads the arguments of spec/micro.md, warms the bench up, runs it once more as the measured run and
  # prints its JSON line.
  module CLI
    class UsageError < StandardError; end

    BENCH_PARAMS = {
      'pingping' => %i[size rounds],
      'pingpong' => %i[size rounds],
      'spawn' => %i[procs],
      'throughput' => %i[pairs size seconds],
      'ring' => %i[procs size rounds]
    }.freeze
    DEFAULTS = {
      mode: 'idiomatic', size: 5000, rounds: 10_000, procs: 1000, pairs: 1, seconds: 1.0, warmup_s: 10.0
    }.freeze
    # --warmup-s sets warmup_s; every other option is its own key.
    OPTIONS = DEFAULTS.keys.to_h { |key| ["--#{key.to_s.tr('_', '-')}", key] }.freeze

    module_function

    def run(argv)
      bench, params = parse(argv)
      warmup, result = session(bench, params)
      puts JSON.generate(document(bench, params, result, warmup))
      0
    rescue UsageError => e
      warn "micro: #{e.message}"
      2
    rescue StandardError, NoMemoryError => e
      warn "micro #{bench}: #{e.class}: #{e.message}"
      1
    end

    # The warm-up (iterations with the same parameters; throughput's last min(D, 0.1 s)), each checked like
    # the measured run, then the measured run. Returns the warm-up's Report and the measured result.
    def session(bench, params, bench_once = method(:bench_once))
      warm = params
      warm = params.merge(seconds: [params[:seconds], Warmup::THROUGHPUT_WARMUP_S].min).freeze if bench == 'throughput'
      value = ->(result) { metric(bench, warm, result)[Warmup::METRIC[bench]] }
      warmup = Warmup.run(params[:warmup_s], value:) do
        bench_once.call(bench, warm).tap { |result| Warmup.verify_check(bench, warm, result.check) }
      end
      [warmup, bench_once.call(bench, params)]
    end

    def bench_once(bench, params)
      Benches.public_send(bench, params, Payload.new(params[:mode], params[:size]))
    end

    def parse(argv)
      bench = bench_name(argv.first)
      params = options(argv.drop(1))
      raise UsageError, 'ring needs --procs >= 2' if bench == 'ring' && params[:procs] < 2

      [bench, params.freeze]
    end

    def bench_name(name)
      return name if BENCH_PARAMS.key?(name)

      known = BENCH_PARAMS.keys.join(', ')
      raise UsageError,
            name ? "unknown benchmark #{name.inspect}: one of #{known}" : "missing benchmark: one of #{known}"
    end

    def options(args)
      values = DEFAULTS.dup
      args.each_slice(2) do |flag, text|
        name = OPTIONS[flag]
        raise UsageError, "unknown option #{flag.inspect}" unless name
        raise UsageError, "#{flag} needs a value" if text.nil?

        values[name] = value(name, text)
      end
      values
    end

    def value(name, text)
      case name
      when :mode
        return text if %w[idiomatic copy].include?(text)

        raise UsageError, "--mode must be idiomatic or copy, not #{text.inspect}"
      when :seconds, :warmup_s then seconds(name, text)
      else
        count = number(name, text) { Integer(text, 10) }
        count >= 1 ? count : raise(UsageError, "--#{name} must be >= 1, not #{text}")
      end
    end

    # --seconds must be > 0, --warmup-s >= 0; both finite, fractions allowed.
    def seconds(name, text)
      seconds = number(name, text) { Float(text) }
      return seconds if seconds.finite? && (name == :seconds ? seconds.positive? : !seconds.negative?)

      raise UsageError, "#{OPTIONS.key(name)} must be #{name == :seconds ? '> 0' : '>= 0'}, not #{text}"
    end

    def number(name, text)
      yield
    rescue ArgumentError
      raise UsageError, "#{OPTIONS.key(name)} needs a number, not #{text.inspect}"
    end

    def document(bench, params, result, warmup)
      {
        bench:,
        mode: params[:mode],
        payload: params[:mode] == 'copy' ? 'copied' : 'shared',
        params: BENCH_PARAMS[bench].to_h { |name| [name, params[name]] },
        elapsed_s: result.elapsed,
        # Spawn's memory is the first warm-up iteration's when there was one: what a fresh runtime pays.
        metric: metric(bench, params, result, (warmup.first_result || result).rss_kb),
        check: result.check,
        warmup: warmup.document,
        runtime: "#{RUBY_ENGINE} #{RUBY_VERSION}p#{RUBY_PATCHLEVEL}",
        # The GVL lets one thread run Ruby code at a time.
        cpus: 1
      }
    end

    def metric(bench, params, result, rss_kb = result.rss_kb)
      us = result.elapsed * 1e6
      case bench
      when 'pingping' then { us_per_message: us / params[:rounds] }
      when 'pingpong' then { us_per_round_trip: us / params[:rounds] }
      when 'spawn' then spawn_metric(params, us, *rss_kb)
      when 'throughput' then { messages_per_s: result.check[:messages] / result.elapsed }
      else { us_per_hop: us / (params[:procs] * params[:rounds]) }
      end
    end

    def spawn_metric(params, micros, before, peak)
      { us_per_spawn: micros / params[:procs], bytes_per_process: (peak - before) * 1024.0 / params[:procs],
        rss_before_kb: before, rss_peak_kb: peak }
    end
  end
end
