# frozen_string_literal: true

module Micro
  # A message arrived with the wrong content: the run is invalid.
  class CheckFailed < StandardError; end

  # The buffer a send carries: one shared String (idiomatic) or a fresh one per send (copy).
  class Payload
    def initialize(mode, size)
      @copy = mode == 'copy'
      @size = size
      @shared = ("\0".b * size).freeze
    end

    def make(seq)
      @copy ? [seq & 255].pack('C') * @size : @shared
    end

    def check(data, seq)
      expected = seq & 255
      return unless @copy && (data.getbyte(0) != expected || data.getbyte(-1) != expected)

      raise CheckFailed, "message #{seq} holds bytes #{data.getbyte(0)}..#{data.getbyte(-1)}, expected #{expected}"
    end
  end
end
