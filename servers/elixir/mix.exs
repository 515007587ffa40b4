defmodule Arena.MixProject do
  use Mix.Project

  # No dependencies: hex.pm is out of reach, so the HTTP server (mochiweb) and
  # its JSON codec, the PostgreSQL driver (p1_pgsql) and the pool (poolboy)
  # come from Debian's erlang-mochiweb, erlang-p1-pgsql and erlang-poolboy,
  # which install into Erlang's own lib directory and so are on the code path
  # already.
  def project do
    [
      app: :arena,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      elixirc_paths: if(Mix.env() == :test, do: ["lib", "test/support"], else: ["lib"]),
      deps: [],
      aliases: [test: "test --no-start"]
    ]
  end

  def application do
    [
      # p1_pgsql's SCRAM login (PostgreSQL's default) calls stringprep's NIF,
      # which only its application loads; p1_pgsql.app does not list it.
      extra_applications: [:logger, :mochiweb, :p1_pgsql, :stringprep, :poolboy],
      mod: {Arena.Application, []}
    ]
  end
end
