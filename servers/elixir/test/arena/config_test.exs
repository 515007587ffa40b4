defmodule Arena.ConfigTest do
  use ExUnit.Case, async: true
  alias Arena.Config

  test "defaults when nothing is set" do
    assert {:ok, config} = Config.load(%{})

    assert config == %Config{
             host: {127, 0, 0, 1},
             port: 8080,
             cpus: 1,
             bcrypt_cost: 10,
             longpoll_ms: 5000,
             hello_delay_ms: 2000,
             hello_every: 10,
             sort_n: 50_000,
             data_dir: "../../spec/data",
             db: nil,
             db_pool: 8
           }
  end

  test "reads every variable" do
    env = %{
      "ARENA_HOST" => "0.0.0.0",
      "ARENA_PORT" => "9000",
      "ARENA_CPUS" => "4",
      "ARENA_BCRYPT_COST" => "4",
      "ARENA_LONGPOLL_MS" => "0",
      "ARENA_HELLO_DELAY_MS" => "10",
      "ARENA_HELLO_DELAY_EVERY" => "1",
      "ARENA_SORT_N" => "200000",
      "ARENA_DATA_DIR" => "/data",
      "ARENA_DB_URL" => "postgresql://arena:p%40ss:w@127.0.0.1:5433/records",
      "ARENA_DB_POOL" => "1000"
    }

    assert {:ok, config} = Config.load(env)
    assert config.host == {0, 0, 0, 0}
    assert {config.port, config.cpus, config.bcrypt_cost} == {9000, 4, 4}
    assert {config.longpoll_ms, config.hello_delay_ms, config.hello_every} == {0, 10, 1}
    assert {config.sort_n, config.data_dir} == {200_000, "/data"}
    assert config.db_pool == 1000

    assert config.db == [
             host: ~c"127.0.0.1",
             port: 5433,
             user: "arena",
             password: "p@ss:w",
             database: "records"
           ]

    assert {:ok, %{db: db}} = Config.load(%{"ARENA_DB_URL" => "postgres://u:p@localhost/d"})
    assert db[:port] == 5432

    # Without a password, as a database that trusts the client is reached.
    assert {:ok, %{db: db}} = Config.load(%{"ARENA_DB_URL" => "postgresql://a%20b@h/%61rena"})
    assert {db[:user], db[:password], db[:database]} == {"a b", "", "arena"}
  end

  test "a malformed value is an error naming the variable" do
    for {name, value} <- [
          {"ARENA_PORT", "0"},
          {"ARENA_PORT", "65536"},
          {"ARENA_PORT", "80x"},
          {"ARENA_PORT", ""},
          {"ARENA_CPUS", "0"},
          {"ARENA_BCRYPT_COST", "3"},
          {"ARENA_BCRYPT_COST", "32"},
          {"ARENA_LONGPOLL_MS", "-1"},
          {"ARENA_HELLO_DELAY_MS", "1.5"},
          {"ARENA_HELLO_DELAY_EVERY", "0"},
          {"ARENA_SORT_N", "200001"},
          {"ARENA_DATA_DIR", ""},
          {"ARENA_HOST", "not a host!"},
          {"ARENA_DB_POOL", "0"},
          {"ARENA_DB_POOL", "1001"},
          {"ARENA_DB_POOL", "eight"},
          {"ARENA_DB_URL", "mysql://u:p@127.0.0.1/d"},
          {"ARENA_DB_URL", "postgresql://127.0.0.1/d"},
          {"ARENA_DB_URL", "postgresql://u:p@127.0.0.1"}
        ] do
      assert {:error, message} = Config.load(%{name => value})
      assert message =~ name
    end
  end
end
