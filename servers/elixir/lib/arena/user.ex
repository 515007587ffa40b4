defmodule Arena.User do
  @moduledoc """
  `/user/set` and `/user/get`. The body is stored as it came once it is known
  to be a JSON object: it already is a JSON value equal to the one sent.
  """
  alias Arena.{Reply, Request, Store}

  def set(req, _ctx, segment) do
    with {:ok, name} <- Request.username(segment),
         {:ok, json} <- Request.json_object(req) do
      Store.put_user(name, json)
      Reply.ok()
    end
  end

  def get(_req, _ctx, segment) do
    with {:ok, name} <- Request.username(segment) do
      case Store.fetch_user(name) do
        {:ok, json} -> Reply.json(json)
        :error -> {:error, 404, "unknown user"}
      end
    end
  end
end
