defmodule Arena.Router do
  @moduledoc """
  Maps a request to its handler by path segments, then method: an unknown
  path (an empty or multi-segment username included) is 404, a known path
  with another method 405.
  """
  alias Arena.{LongOperation, Password, Record, Reply, User, Wait}

  @spec dispatch(Arena.Request.t(), map) :: Reply.t() | Arena.Request.error()
  def dispatch(req, ctx) do
    method = :mochiweb_request.get(:method, req)
    # Bytes as they came; each segment is percent-decoded only after the split,
    # so an encoded "/" stays inside its username.
    raw_path = :erlang.list_to_binary(:mochiweb_request.get(:raw_path, req))
    [path | _query] = :binary.split(raw_path, "?")

    case route(segments(path)) do
      :not_found ->
        {:error, 404, "not found"}

      handlers ->
        # A method outside HTTP's standard ones (PATCH) comes as a string.
        case List.keyfind(handlers, method, 0) do
          {_method, handler} ->
            handler.(req, ctx)

          nil ->
            allowed = handlers |> Keyword.keys() |> Enum.join(", ")
            Reply.text(405, "method not allowed", [{"Allow", allowed}])
        end
    end
  end

  defp segments("/" <> path), do: String.split(path, "/")
  defp segments(_absolute_uri_or_star), do: []

  defp route([""]), do: [GET: fn _req, _ctx -> Reply.ok() end]
  defp route(["hello"]), do: [GET: &Wait.hello/2]
  defp route(["longPoll"]), do: [GET: &Wait.long_poll/2]
  defp route(["long-operation"]), do: [GET: &LongOperation.run/2]
  defp route(["password", "set", name]) when name != "", do: [POST: &Password.set(&1, &2, name)]

  defp route(["password", "verify", name]) when name != "",
    do: [POST: &Password.verify(&1, &2, name)]

  defp route(["user", "set", name]) when name != "", do: [POST: &User.set(&1, &2, name)]
  defp route(["user", "get", name]) when name != "", do: [GET: &User.get(&1, &2, name)]

  defp route(["record"]),
    do: [
      GET: &Record.read/2,
      PUT: &Record.create/2,
      POST: &Record.update/2,
      DELETE: &Record.delete/2
    ]

  defp route(_segments), do: :not_found
end
