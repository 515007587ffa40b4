defmodule Arena.Reply do
  @moduledoc """
  Responses in mochiweb's `{status, headers, body}` form. Handlers return one
  of these or `{:error, status, message}`, which becomes a short text answer.
  """

  @type t :: {pos_integer, [{String.t(), String.t()}], iodata}

  @spec ok() :: t
  def ok, do: text(200, "OK")

  @spec text(pos_integer, iodata, [{String.t(), String.t()}]) :: t
  def text(status, body, headers \\ []),
    do: {status, [{"Content-Type", "text/plain; charset=utf-8"} | headers], body}

  @spec html(iodata) :: t
  def html(body), do: {200, [{"Content-Type", "text/html; charset=utf-8"}], body}

  @spec json(pos_integer, iodata) :: t
  def json(status \\ 200, body), do: {status, [{"Content-Type", "application/json"}], body}
end
