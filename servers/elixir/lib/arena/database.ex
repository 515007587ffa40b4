defmodule Arena.Database do
  @moduledoc """
  PostgreSQL for `/record`: a poolboy pool of `ARENA_DB_POOL` workers, each
  holding at most one p1_pgsql connection, opened when it is first needed and
  opened again after it was lost. The BEAM is one OS process, so this one
  pool bounds the connections of the whole server.

  A request checks a worker out and waits, suspended, for the worker to run
  its statement: p1_pgsql's `pquery/3` (parse, bind, execute, sync: one
  parameterised statement, autocommitted). Neither the pool nor the driver
  sends anything else once a connection is set up.
  """
  use GenServer
  require Logger

  @behaviour :poolboy_worker

  # TCP connect of a new connection.
  @connect_ms 2_000
  # A request waits at most this long for a free worker, then this long for
  # its answer: a database that is gone gives a 503 within 5 s.
  @checkout_ms 2_000
  @answer_ms 3_000

  @unavailable {:error, 503, "database unavailable"}

  @doc "The pool: `size` workers, none beyond, connecting with p1_pgsql `options`."
  def child_spec({options, size}) do
    pool = [name: {:local, __MODULE__}, worker_module: __MODULE__, size: size, max_overflow: 0]
    :poolboy.child_spec(__MODULE__, pool, options)
  end

  @doc "Runs one statement; the rows it returned, each a list of column values."
  @spec query(String.t(), [binary]) :: {:ok, [[binary]]} | {:error, 503, String.t()}
  def query(sql, params) do
    :poolboy.transaction(
      __MODULE__,
      &GenServer.call(&1, {:query, sql, params}, @answer_ms),
      @checkout_ms
    )
  catch
    :exit, _reason -> @unavailable
  end

  @impl :poolboy_worker
  def start_link(options), do: GenServer.start_link(__MODULE__, options)

  @impl GenServer
  def init(options) do
    # The connection gets linked: it goes with its worker, and its own end
    # (the database gone) arrives here as a message instead of ending the worker.
    Process.flag(:trap_exit, true)
    {:ok, %{options: [{:connect_timeout, @connect_ms} | options], conn: nil}}
  end

  @impl GenServer
  def handle_call({:query, sql, params}, _from, state) do
    with {:ok, conn} <- connect(state.conn, state.options),
         {:ok, rows} <- run(conn, sql, params) do
      {:reply, {:ok, rows}, %{state | conn: conn}}
    else
      :error -> {:reply, @unavailable, %{state | conn: nil}}
    end
  end

  defp run(conn, sql, params) do
    # The driver sends the rows, and whatever else arrived meanwhile
    # (a notice), as one list.
    {:ok, _command, _status, _columns, log} = :pgsql.pquery(conn, sql, params)
    {:ok, for(row when is_list(row) <- log, do: Enum.map(row, fn {_type, value} -> value end))}
  catch
    # p1_pgsql's call gives up after 5 s, and it never returns after an
    # error response: such a connection is stuck, so it goes.
    :exit, reason ->
      Logger.warning("database query failed: #{inspect(reason)}")
      Process.exit(conn, :kill)
      :error
  end

  @impl GenServer
  def handle_info({:EXIT, conn, _reason}, %{conn: conn} = state),
    do: {:noreply, %{state | conn: nil}}

  # A connection the worker already dropped after a failed query.
  def handle_info({:EXIT, _old, _reason}, state), do: {:noreply, state}

  # The driver forwards the notices of a connection's set-up to its starter.
  def handle_info({:pgsql_notice, _notice}, state), do: {:noreply, state}

  defp connect(nil, options) do
    case :pgsql.connect(options) do
      {:ok, conn} ->
        Process.link(conn)
        {:ok, conn}

      {:error, reason} ->
        Logger.warning("database connection failed: #{inspect(reason)}")
        :error
    end
  end

  defp connect(conn, _options), do: {:ok, conn}
end
