defmodule Arena.Sort do
  @moduledoc """
  `/long-operation`'s work: the spec's LCG array, its exact descending bubble
  sort, and the checksum.

  The array is a list. Pass `i` of the bubble sort compares the same pairs in
  the same order as the spec's loop over an array: it walks the first `n - i`
  elements carrying the one being bubbled, rebuilds them, and shares the
  already sorted tail unchanged.
  """
  import Bitwise

  @mask 0xFFFF_FFFF_FFFF_FFFF

  @doc "The n floats in [0, 1) of the spec's 64-bit LCG seeded with 42."
  @spec lcg_array(non_neg_integer) :: [float]
  def lcg_array(n), do: lcg_array(n, 42, [])

  defp lcg_array(0, _x, acc), do: :lists.reverse(acc)

  defp lcg_array(k, x, acc) do
    x = band(x * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407, @mask)
    # An integer below 2^53 divided by 2^53: exact in float64, so equal to
    # the spec's (x >> 11) * 2^-53.
    lcg_array(k - 1, x, [(x >>> 11) / 9_007_199_254_740_992 | acc])
  end

  @doc "The spec's O(n²) bubble sort, descending."
  @spec bubble_sort_desc([float]) :: [float]
  def bubble_sort_desc([]), do: []
  def bubble_sort_desc(list), do: passes(list, length(list) - 1)

  defp passes(list, 0), do: list
  defp passes([first | rest], compares), do: passes(pass(rest, first, compares, []), compares - 1)

  # `carry` is a[j-1] after the previous comparison; `done` holds the
  # elements already passed, reversed.
  defp pass(rest, carry, 0, done), do: :lists.reverse(done, [carry | rest])

  defp pass([next | rest], carry, compares, done) when carry < next,
    do: pass(rest, carry, compares - 1, [next | done])

  defp pass([next | rest], carry, compares, done),
    do: pass(rest, next, compares - 1, [carry | done])

  @doc "Σ (i+1)·a[i] in index order, in float64."
  @spec checksum([float]) :: float
  def checksum(list), do: checksum(list, 1, 0.0)

  defp checksum([], _i, sum), do: sum
  defp checksum([x | rest], i, sum), do: checksum(rest, i + 1, sum + i * x)
end
