defmodule Arena.SortTest do
  use ExUnit.Case, async: true
  alias Arena.Sort

  defp checksum(n), do: n |> Sort.lcg_array() |> Sort.bubble_sort_desc() |> Sort.checksum()

  test "checksums equal the spec's reference values" do
    assert checksum(1) == 0.5682303266439076
    assert checksum(10) == 10.676268897597582
    assert checksum(1000) == 169_238.799942987
  end

  test "the LCG's first value" do
    assert [0.5682303266439076] = Sort.lcg_array(1)
  end

  test "the bubble sort orders descending and keeps every element" do
    list = Sort.lcg_array(500)
    assert Sort.bubble_sort_desc(list) == Enum.sort(list, :desc)
    assert Sort.bubble_sort_desc([1.0, 3.0, 2.0, 3.0]) == [3.0, 3.0, 2.0, 1.0]
    assert Sort.bubble_sort_desc([]) == []
  end
end
