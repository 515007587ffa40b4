defmodule Arena.Application do
  @moduledoc """
  Start-up: reads the settings and hello.html, applies the core budget and
  starts the store, the database pool and the HTTP server. A malformed
  setting or an unreadable hello.html stops the VM with status 2 before
  anything listens, an address that cannot be bound with status 1.
  """
  use Application
  require Logger

  alias Arena.Config

  @impl true
  def start(_type, _args) do
    with {:ok, config} <- Config.load(System.get_env()),
         {:ok, page} <- read_page(config) do
      apply_core_budget(config.cpus)
      start_tree(config, page)
    else
      {:error, message} -> abort(2, "config: " <> message)
    end
  end

  @doc """
  The supervised processes: the store's table owner, the database pool when
  `ARENA_DB_URL` is set, then the listener.
  """
  def children(config, page) do
    pool = if config.db, do: [{Arena.Database, {config.db, config.db_pool}}], else: []
    [Arena.Store] ++ pool ++ [{Arena.HTTP, {config, page}}]
  end

  defp start_tree(config, page) do
    case Supervisor.start_link(children(config, page), strategy: :one_for_all) do
      {:ok, pid} ->
        log_start(config)
        {:ok, pid}

      {:error, {:shutdown, {:failed_to_start_child, Arena.HTTP, reason}}} ->
        address = "#{:inet.ntoa(config.host)}:#{config.port}"
        abort(1, "cannot listen on #{address}: #{:inet.format_error(reason)}")
    end
  end

  defp abort(status, message) do
    IO.puts(:stderr, message)
    System.halt(status)
  end

  defp read_page(config) do
    path = Path.join(config.data_dir, "hello.html")

    case File.read(path) do
      {:ok, page} -> {:ok, page}
      {:error, reason} -> {:error, "cannot read #{path}: #{:file.format_error(reason)}"}
    end
  end

  # The run command starts exactly ARENA_CPUS schedulers (+S, +SDcpu); when
  # the VM was started another way with more, the surplus goes offline.
  defp apply_core_budget(cpus) do
    :erlang.system_flag(:schedulers_online, min(cpus, System.schedulers()))
    dirty = :erlang.system_info(:dirty_cpu_schedulers)
    :erlang.system_flag(:dirty_cpu_schedulers_online, min(cpus, dirty))
  end

  defp log_start(config) do
    Logger.info(
      "elixir server on http://#{:inet.ntoa(config.host)}:#{Arena.HTTP.port()}: " <>
        "schedulers=#{System.schedulers_online()} " <>
        "dirty_cpu=#{:erlang.system_info(:dirty_cpu_schedulers_online)} cpus=#{config.cpus} " <>
        "bcrypt_cost=#{config.bcrypt_cost} longpoll_ms=#{config.longpoll_ms} " <>
        "hello_delay_ms=#{config.hello_delay_ms} every #{config.hello_every} " <>
        "sort_n=#{config.sort_n} data=#{config.data_dir} " <>
        "db=#{if config.db, do: "set", else: "unset"} db_pool=#{config.db_pool} " <>
        "otp=#{System.otp_release()} elixir=#{System.version()}"
    )
  end
end
