# `mix test` runs with --no-start (see mix.exs): instead of the application,
# which would read ARENA_* and listen on 8080, one server with short waits
# listens on a free port for the HTTP tests. It uses the database of
# ARENA_DB_URL when that is set (the /record tests are skipped otherwise).
# The applications it needs are started: stringprep, say, loads the NIF of
# p1_pgsql's login.
for app <- Application.spec(:arena, :applications),
    do: {:ok, _} = Application.ensure_all_started(app)

{:ok, %{db: db}} = Arena.Config.load(Map.take(System.get_env(), ["ARENA_DB_URL"]))

config = %Arena.Config{
  host: {127, 0, 0, 1},
  port: 0,
  cpus: 1,
  bcrypt_cost: 4,
  longpoll_ms: 200,
  hello_delay_ms: 500,
  hello_every: 3,
  sort_n: 10,
  data_dir: "unused",
  db: db,
  db_pool: 2
}

{:ok, _} =
  Supervisor.start_link(Arena.Application.children(config, "<p>hello</p>"),
    strategy: :one_for_all
  )

ExUnit.start()
