defmodule Arena.MixProject do
  use Mix.Project

  # No dependencies: hex.pm is out of reach, so the HTTP server (mochiweb) and
  # its JSON codec come from Debian's erlang-mochiweb, which installs into
  # Erlang's own lib directory and so is on the code path already.
  def project do
    [
      app: :arena,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: Mix.env() == :prod,
      deps: [],
      aliases: [test: "test --no-start"]
    ]
  end

  def application do
    [
      extra_applications: [:logger, :mochiweb],
      mod: {Arena.Application, []}
    ]
  end
end
