defmodule Arena.Config do
  @moduledoc """
  The `ARENA_*` settings of spec/README.md.

  A variable that is set but malformed is an error: the server must never run
  with a silently different setting than the one asked for.
  """

  # The bubble sort is O(n²): a larger n would hold a core for minutes.
  @max_sort_n 200_000
  # The longest wait `receive ... after` accepts.
  @max_millis 4_294_967_295

  defstruct [
    :host,
    :port,
    :cpus,
    :bcrypt_cost,
    :longpoll_ms,
    :hello_delay_ms,
    :hello_every,
    :sort_n,
    :data_dir,
    :db,
    :db_pool
  ]

  @type t :: %__MODULE__{}

  def max_sort_n, do: @max_sort_n

  @doc "Reads the settings from `env` (`System.get_env()` in production)."
  @spec load(%{optional(String.t()) => String.t()}) :: {:ok, t} | {:error, String.t()}
  def load(env) do
    with {:ok, host} <- address(env, "ARENA_HOST"),
         {:ok, port} <- int(env, "ARENA_PORT", 8080, 1, 65_535),
         {:ok, cpus} <- int(env, "ARENA_CPUS", 1, 1),
         {:ok, cost} <- int(env, "ARENA_BCRYPT_COST", 10, 4, 31),
         {:ok, longpoll} <- int(env, "ARENA_LONGPOLL_MS", 5000, 0, @max_millis),
         {:ok, delay} <- int(env, "ARENA_HELLO_DELAY_MS", 2000, 0, @max_millis),
         {:ok, every} <- int(env, "ARENA_HELLO_DELAY_EVERY", 10, 1),
         {:ok, sort_n} <- int(env, "ARENA_SORT_N", 50_000, 1, @max_sort_n),
         {:ok, data_dir} <- string(env, "ARENA_DATA_DIR", "../../spec/data"),
         {:ok, db} <- db_url(env),
         {:ok, db_pool} <- int(env, "ARENA_DB_POOL", 8, 1, 1000) do
      {:ok,
       %__MODULE__{
         host: host,
         port: port,
         cpus: cpus,
         bcrypt_cost: cost,
         longpoll_ms: longpoll,
         hello_delay_ms: delay,
         hello_every: every,
         sort_n: sort_n,
         data_dir: data_dir,
         db: db,
         db_pool: db_pool
       }}
    end
  end

  defp int(env, name, default, min, max \\ :infinity) do
    case Map.fetch(env, name) do
      :error ->
        {:ok, default}

      {:ok, text} ->
        case Integer.parse(text) do
          # Any integer compares below an atom, so :infinity means no bound.
          {n, ""} when n >= min and n <= max -> {:ok, n}
          _ -> {:error, "#{name}=#{inspect(text)}: want an integer #{bounds(min, max)}"}
        end
    end
  end

  defp bounds(min, :infinity), do: ">= #{min}"
  defp bounds(min, max), do: "in #{min}..#{max}"

  defp string(env, name, default) do
    case Map.fetch(env, name) do
      :error -> {:ok, default}
      {:ok, ""} -> {:error, "#{name} is set but empty"}
      {:ok, text} -> {:ok, text}
    end
  end

  # p1_pgsql's connection options, or nil when unset (/record then answers
  # 503). The password may be absent (a database that trusts the client); the
  # message leaves the URL out: it holds the password.
  defp db_url(env) do
    with {:ok, text} <- Map.fetch(env, "ARENA_DB_URL"),
         %URI{scheme: scheme, userinfo: userinfo, host: host, port: port, path: "/" <> db}
         when scheme in ["postgresql", "postgres"] and is_binary(userinfo) and
                host not in [nil, ""] and db != "" <- URI.parse(text) do
      {user, password} =
        case String.split(userinfo, ":", parts: 2) do
          [user, password] -> {user, password}
          [user] -> {user, ""}
        end

      {:ok,
       [
         host: String.to_charlist(host),
         port: port || 5432,
         user: URI.decode(user),
         password: URI.decode(password),
         database: URI.decode(db)
       ]}
    else
      :error -> {:ok, nil}
      _ -> {:error, "ARENA_DB_URL: want postgresql://user[:password]@host[:port]/db"}
    end
  end

  # An IP address literal or a host name that resolves (to IPv4 first).
  defp address(env, name) do
    with {:ok, text} <- string(env, name, "127.0.0.1") do
      host = String.to_charlist(text)

      with {:error, _} <- :inet.parse_address(host),
           {:error, _} <- :inet.getaddr(host, :inet),
           {:error, _} <- :inet.getaddr(host, :inet6) do
        {:error, "#{name}=#{inspect(text)}: not an IP address or a resolvable host name"}
      end
    end
  end
end
