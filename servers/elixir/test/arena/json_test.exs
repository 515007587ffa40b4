defmodule Arena.JSONTest do
  use ExUnit.Case, async: true
  alias Arena.JSON

  test "accepts valid JSON of every kind" do
    for text <- [
          ~s({}),
          ~s( {"a": [1, -2.5e+3, 0, true, false, null, "x\\n\\u00e9\\"", {}]} ),
          ~s([]),
          ~s("text"),
          ~s(-0.0E-0),
          "{\"ü\": \"教育\"}",
          String.duplicate("[", 5000) <> String.duplicate("]", 5000)
        ] do
      assert JSON.valid?(text), text
    end
  end

  test "refuses what mochijson2 would let through, and plain garbage" do
    for text <- [
          ~s({"a": 1,}),
          ~s([1,]),
          ~s({1: 2}),
          ~s({"a": "\\x"}),
          "{\"a\": \"tab\there\"}",
          ~s({"a": 01}),
          ~s({"a": 1.}),
          ~s({"a": .5}),
          ~s({"a": NaN}),
          ~s({"a": 1} x),
          ~s({"a": 1),
          ~s({'a': 1}),
          "",
          " ",
          <<?", 0xFF, ?">>
        ] do
      refute JSON.valid?(text), text
    end
  end

  test "object? wants an object" do
    assert JSON.object?(~s( {"a": 1}))
    refute JSON.object?(~s([1, 2]))
    refute JSON.object?(~s("{}"))
    refute JSON.object?(~s({"a": 1))
  end
end
