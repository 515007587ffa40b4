defmodule Arena.ValidationTest do
  use ExUnit.Case, async: true
  alias Arena.{LongOperation, Request}

  test "usernames match ^[A-Za-z0-9_.-]{1,64}$ after percent-decoding" do
    assert Request.username("Alice_1.b-c") == {:ok, "Alice_1.b-c"}
    assert Request.username("%41lice") == {:ok, "Alice"}
    assert Request.username(String.duplicate("x", 64)) == {:ok, String.duplicate("x", 64)}

    for bad <- [
          "bad%20name",
          String.duplicate("x", 65),
          "semi%3Bcolon",
          "a%2Fb",
          "%zz",
          "ü",
          "%00"
        ] do
      assert {:error, 400, _} = Request.username(bad), bad
    end
  end

  test "n is decimal digits in 1..200000, the default when absent" do
    assert LongOperation.size([], 300) == {:ok, 300}
    assert LongOperation.size([{~c"n", ~c"0777"}], 300) == {:ok, 777}
    assert LongOperation.size([{~c"n", ~c"200000"}, {~c"n", ~c"x"}], 300) == {:ok, 200_000}

    for bad <- ["", "0", "200001", "-1", "+5", "1.5", "1e3", "abc", "99999999999999999999999"] do
      assert {:error, 400, _} = LongOperation.size([{~c"n", String.to_charlist(bad)}], 300), bad
    end
  end
end
