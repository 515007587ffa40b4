defmodule Arena.Record do
  @moduledoc """
  `/record`: records in PostgreSQL, one parameterised statement a request.
  The name and value are checked first, so a refused request sends nothing
  to the database.
  """
  alias Arena.{Database, Reply, Request}

  # With DO NOTHING an existing name returns no row: the conflict is the 409,
  # and concurrent creates of one name leave exactly one winner.
  @insert "INSERT INTO record (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name, value"
  @select "SELECT name, value FROM record WHERE name = $1"
  @update "UPDATE record SET value = $2 WHERE name = $1 RETURNING name, value"
  @delete "DELETE FROM record WHERE name = $1 RETURNING name, value"

  def create(req, ctx) do
    with {:ok, name, value} <- Request.record(req),
         do: run(ctx, @insert, [name, value], 201, {:error, 409, "record exists"})
  end

  def read(req, ctx) do
    with {:ok, name} <- Request.record_name(req), do: run(ctx, @select, [name])
  end

  def update(req, ctx) do
    with {:ok, name, value} <- Request.record(req), do: run(ctx, @update, [name, value])
  end

  def delete(req, ctx) do
    with {:ok, name} <- Request.record_name(req), do: run(ctx, @delete, [name])
  end

  defp run(ctx, sql, params, status \\ 200, none \\ {:error, 404, "no such record"})

  defp run(%{config: %{db: nil}}, _sql, _params, _status, _none),
    do: {:error, 503, "no database: ARENA_DB_URL is not set"}

  defp run(_ctx, sql, params, status, none) do
    case Database.query(sql, params) do
      {:ok, [[name, value]]} ->
        record = {:struct, [{"name", name}, {"value", value}]}
        Reply.json(status, :mochijson2.encoder(utf8: true).(record))

      {:ok, []} ->
        none

      error ->
        error
    end
  end
end
