defmodule Micro.MixProject do
  use Mix.Project

  # No dependencies (hex.pm is out of reach): plain processes, send and receive.
  def project do
    [
      app: :micro,
      version: "0.1.0",
      elixir: "~> 1.14",
      deps: []
    ]
  end

  def application do
    [extra_applications: [:logger]]
  end
end
