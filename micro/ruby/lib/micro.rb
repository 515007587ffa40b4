# frozen_string_literal: true

require_relative 'micro/payload'
require_relative 'micro/benches'
require_relative 'micro/warmup'
require_relative 'micro/cli'

# The micro-benchmarks of spec/micro.md on Ruby threads.
module Micro
  # A process whose check fails leaves its peers blocked on their receives: raise the failure in the
  # main thread, which reports it and exits (ending every other thread).
  Thread.abort_on_exception = true
  Thread.report_on_exception = false
end
