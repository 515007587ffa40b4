defmodule Arena.Store do
  @moduledoc """
  The password hashes and user objects, in two ETS tables as in the thesis.

  The tables are public, so every connection process reads and writes them
  directly; this process only owns them, so they live as long as the server.
  A write is visible to every process once `:ets.insert/2` has returned.
  """
  use GenServer

  @passwords :arena_passwords
  @users :arena_users

  def start_link(_opts), do: GenServer.start_link(__MODULE__, nil, name: __MODULE__)

  @impl true
  def init(nil) do
    for table <- [@passwords, @users] do
      :ets.new(table, [
        :set,
        :public,
        :named_table,
        read_concurrency: true,
        write_concurrency: true
      ])
    end

    {:ok, nil}
  end

  def put_password(name, hash), do: :ets.insert(@passwords, {name, hash})
  def fetch_password(name), do: fetch(@passwords, name)

  def put_user(name, json), do: :ets.insert(@users, {name, json})
  def fetch_user(name), do: fetch(@users, name)

  defp fetch(table, key) do
    case :ets.lookup(table, key) do
      [{^key, value}] -> {:ok, value}
      [] -> :error
    end
  end
end
