# frozen_string_literal: true

require 'json'
require 'minitest/autorun'
require 'open3'
require 'rbconfig'
require_relative 'warmup_test' # the warm-up's rule and loop, run by this same command

# Runs the program as the harness does, at small sizes, in both modes.
class MicroTest < Minitest::Test
  ROOT = File.expand_path('..', __dir__)
  CASES = [
    [%w[pingping --size 100 --rounds 300], { 'received' => 600 }],
    [%w[pingpong --size 3000 --rounds 300], { 'round_trips' => 300 }],
    [%w[spawn --procs 500], { 'alive' => 500 }],
    [%w[ring --procs 20 --size 50 --rounds 30], { 'laps' => 30, 'hops' => 600 }],
    [%w[ring --procs 2 --size 1 --rounds 300], { 'laps' => 300, 'hops' => 600 }]
  ].freeze
  WARMUP = %w[--warmup-s 0.2].freeze # unless a test says otherwise: short, so that the suite stays quick
  # Runs a bench whose senders fill copy-mode buffers one off: the receiver must fail.
  CORRUPT = <<~RUBY
    require 'micro'
    Micro::Payload.prepend(Module.new { def make(seq) = super(seq + 1) })
    exit!(Micro::CLI.run(ARGV))
  RUBY

  def run_micro(*args, script: ['exe/micro'])
    Open3.capture3(RbConfig.ruby, '-Ilib', *script, *args, chdir: ROOT)
  end

  def output(*args)
    out, err, status = run_micro(*args, *(WARMUP unless args.include?('--warmup-s')))
    assert status.success?, err
    assert_equal 1, out.lines.size, out
    doc = JSON.parse(out)
    check_warmup(doc['warmup'])
    doc
  end

  def check_warmup(warmup)
    assert_equal %w[iterations seconds steady series], warmup.keys
    assert_equal warmup['iterations'], warmup['series'].size
    assert_equal warmup['steady'], Micro::Warmup.steady?(warmup['series'])
    assert(warmup['series'].all?(&:positive?))
  end

  def test_benches
    { 'idiomatic' => 'shared', 'copy' => 'copied' }.each do |mode, payload|
      CASES.each do |args, check|
        doc = output(*args, '--mode', mode)
        assert_equal check, doc['check'], args
        assert_equal [args.first, mode, payload, 1], doc.values_at('bench', 'mode', 'payload', 'cpus')
        assert_operator doc['elapsed_s'], :>, 0
        assert_operator doc['warmup']['iterations'], :>=, 1
      end
    end
  end

  def test_no_warmup
    [%w[pingpong --rounds 50], %w[spawn --procs 20]].each do |args|
      doc = output(*args, '--warmup-s', '0')
      assert_equal({ 'iterations' => 0, 'seconds' => 0, 'steady' => false, 'series' => [] }, doc['warmup'])
    end
  end

  def test_warmup_until_steady_or_time_is_up
    doc = output(*%w[ring --procs 3 --rounds 50 --warmup-s 1.5])
    warmup = doc['warmup']
    if warmup['steady']
      refute((0...warmup['iterations']).any? { |k| Micro::Warmup.steady?(warmup['series'].first(k)) })
    else
      assert_operator warmup['seconds'], :>=, 1.5
    end
    assert_equal({ 'laps' => 50, 'hops' => 150 }, doc['check'])
  end

  def test_spawn_metrics
    metric = output('spawn', '--procs', '200')['metric']
    assert_operator metric['rss_peak_kb'], :>=, metric['rss_before_kb']
    assert_operator metric['us_per_spawn'], :>, 0
  end

  def test_throughput
    %w[idiomatic copy].each do |mode|
      doc = output('throughput', '--pairs', '3', '--size', '200', '--seconds', '0.1', '--mode', mode)
      check = doc['check']
      assert_equal 3, check['per_pair'].size
      assert_equal check['messages'], check['per_pair'].sum
      assert_operator check['messages'], :>, 0
      assert_equal({ 'pairs' => 3, 'size' => 200, 'seconds' => 0.1 }, doc['params'])
    end
  end

  def test_defaults_and_ignored_options
    doc = output('spawn', '--size', '7', '--procs', '10', '--rounds', '2')
    assert_equal({ 'procs' => 10 }, doc['params'])
    assert_equal 'idiomatic', doc['mode']
  end

  def test_bad_arguments
    [
      [], %w[nosuchbench], %w[pingpong --size 0], %w[pingpong --rounds -3], %w[pingpong --size abc],
      %w[pingpong --mode weird], %w[pingpong --bogus 1], %w[pingpong size 1], %w[pingpong --size],
      %w[ring --procs 1], %w[throughput --seconds 0], %w[throughput --seconds 1e999],
      %w[pingpong --warmup-s -1], %w[pingpong --warmup-s -0.5], %w[pingpong --warmup-s soon],
      %w[pingpong --warmup-s 1e999], ['pingpong', '--warmup-s', ''], %w[pingpong --warmup-s], %w[pingpong --warmup_s 1]
    ].each do |args|
      out, err, status = run_micro(*args)
      assert_equal 2, status.exitstatus, args
      assert_empty out
      assert_equal 1, err.lines.size, err
    end
  end

  def test_wrong_copy_fails
    %w[pingping pingpong throughput ring].each do |bench|
      out, err, status = run_micro(bench, '--mode', 'copy', '--rounds', '10', '--procs', '3', script: ['-e', CORRUPT])
      assert_equal 1, status.exitstatus, err
      assert_includes err, 'expected'
      assert_empty out
    end
  end
end
