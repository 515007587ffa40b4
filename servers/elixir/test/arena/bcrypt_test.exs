defmodule Arena.BcryptTest do
  use ExUnit.Case, async: true
  alias Arena.Bcrypt

  test "hashes with $2b$ at the given cost and a fresh salt" do
    assert {:ok, "$2b$04$" <> _ = hash} = Bcrypt.hash("correct horse", 4)
    assert byte_size(hash) == 60
    assert {:ok, other} = Bcrypt.hash("correct horse", 4)
    assert other != hash
  end

  test "verifies the right password only" do
    {:ok, hash} = Bcrypt.hash("€€€", 4)
    assert Bcrypt.verify("€€€", hash)
    refute Bcrypt.verify("€€", hash)
    refute Bcrypt.verify("€€€", "not a hash")
  end

  test "refuses costs bcrypt does not have and passwords crypt(3) cannot take" do
    assert {:error, _} = Bcrypt.hash("x", 3)
    assert {:error, _} = Bcrypt.hash("x", 32)
    assert_raise ArgumentError, fn -> Bcrypt.hash("a\0b", 4) end
    assert_raise ArgumentError, fn -> Bcrypt.hash(String.duplicate("a", 73), 4) end
  end
end
