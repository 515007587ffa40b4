defmodule Arena.RecordTest do
  # /record on the test server (see test_helper.exs, a pool of 2). Requests
  # that reach the database need ARENA_DB_URL; the refused ones do not.
  use ExUnit.Case, async: false
  import Arena.TestClient

  @db System.get_env("ARENA_DB_URL")
  @no_db if @db, do: false, else: "needs a database: ARENA_DB_URL is not set"

  defp record(name, value), do: ~s({"name":#{inspect(name)},"value":#{json(value)}})
  defp json(value), do: IO.iodata_to_binary(:mochijson2.encode(value))
  defp decode(body), do: :mochijson2.decode(body, format: :proplist)

  # A name of its own for each run, so the tests also pass on a database
  # that kept the records of an earlier run.
  defp fresh(prefix), do: "#{prefix}.#{System.unique_integer([:positive])}"

  describe "with a database" do
    @describetag skip: @no_db

    test "create, read, update, delete; 409 and 404" do
      name = fresh("crud")
      path = "/record?name=" <> name

      assert {201, "Content-Type: application/json" <> _, body} =
               request("PUT", "/record", ~s({"name":"#{name}","value":"a","extra":1}))

      assert decode(body) == [{"name", name}, {"value", "a"}]
      assert {409, _, _} = request("PUT", "/record", record(name, "b"))
      assert {200, _, body} = request("GET", path, "")
      assert decode(body) == [{"name", name}, {"value", "a"}]
      assert {200, _, body} = request("POST", "/record", record(name, "b"))
      assert decode(body) == [{"name", name}, {"value", "b"}]
      assert {404, _, _} = request("POST", "/record", record(name <> "x", "b"))
      assert {404, _, _} = request("GET", path <> "x", "")
      assert {200, _, body} = request("DELETE", path, "")
      assert decode(body) == [{"name", name}, {"value", "b"}]
      assert {404, _, _} = request("DELETE", path, "")
      assert {404, _, _} = request("GET", path, "")
    end

    test "values are data: empty, the widest, Unicode, SQL" do
      for value <- ["", String.duplicate("é", 512), "ünï cødé ✓", "x' OR '1'='1", "$1 \\ %s"] do
        name = fresh("value")
        assert {201, _, _} = request("PUT", "/record", record(name, value))
        # The name percent-encoded in the query.
        encoded = name |> String.replace(".", "%2E")
        assert {200, _, body} = request("GET", "/record?name=" <> encoded, "")
        assert decode(body) == [{"name", name}, {"value", value}]
        assert {200, _, _} = request("DELETE", "/record?name=" <> name, "")
      end
    end

    test "concurrent creates of one name: one 201, the others 409" do
      name = fresh("race")

      statuses =
        1..12
        |> Enum.map(fn k ->
          Task.async(fn -> request("PUT", "/record", record(name, "#{k}")) end)
        end)
        |> Enum.map(&(&1 |> Task.await() |> elem(0)))
        |> Enum.frequencies()

      assert statuses == %{201 => 1, 409 => 11}
      assert {200, _, _} = request("DELETE", "/record?name=" <> name, "")
    end

    test "the pool holds at most its 2 connections" do
      name = fresh("pool")
      assert {201, _, _} = request("PUT", "/record", record(name, "v"))

      1..20
      |> Enum.map(fn _ -> Task.async(fn -> request("GET", "/record?name=" <> name, "") end) end)
      |> Enum.each(&assert({200, _, _} = Task.await(&1)))

      assert {:ok, [[count]]} =
               Arena.Database.query(
                 "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND usename = current_user AND pid <> pg_backend_pid()",
                 []
               )

      # The query's own connection is left out. Under `arena test` no other
      # client uses this database.
      assert String.to_integer(count) + 1 <= 2
      assert {200, _, _} = request("DELETE", "/record?name=" <> name, "")
    end
  end

  test "invalid names, bodies and values are 400 before any database; PATCH is 405" do
    for path <- ["/record", "/record?name=", "/record?name=bad%20name", "/record?nam=r1"] do
      assert {400, _, message} = request("GET", path, "")
      assert message != ""
      assert {400, _, _} = request("DELETE", path, "")
    end

    assert {400, _, _} = request("GET", "/record?name=" <> String.duplicate("y", 65), "")

    for body <- [
          "[1]",
          "null",
          "{bad",
          "",
          ~s({"value":"x"}),
          ~s({"name":"a"}),
          ~s({"name":"a","value":5}),
          ~s({"name":"a","value":null}),
          ~s({"name":"bad name","value":"x"}),
          ~s({"name":5,"value":"x"}),
          record("a", String.duplicate("é", 512) <> "x"),
          ~s({"name":"a","value":"nul\\u0000"})
        ] do
      assert {400, _, _} = request("PUT", "/record", body), body
      assert {400, _, _} = request("POST", "/record", body), body
    end

    assert {413, _, _} = request("PUT", "/record", record("a", String.duplicate("v", 70_000)))
    assert {405, _, _} = request("PATCH", "/record", record("a", "x"))
  end

  test "without a database, /record answers 503 at once" do
    ctx = %{config: %Arena.Config{db: nil}}
    req = :mochiweb_request.new(nil, :GET, ~c"/record?name=r1", {1, 1}, :mochiweb_headers.empty())
    assert {:error, 503, "no database" <> _} = Arena.Record.read(req, ctx)

    # A database that refuses connections: a port just closed.
    {:ok, socket} = :gen_tcp.listen(0, ip: {127, 0, 0, 1})
    {:ok, port} = :inet.port(socket)
    :ok = :gen_tcp.close(socket)

    options = [host: ~c"127.0.0.1", port: port, user: "u", password: "p", database: "d"]
    {:ok, worker} = Arena.Database.start_link(options)
    {ms, reply} = :timer.tc(fn -> GenServer.call(worker, {:query, "SELECT 1", []}) end)
    assert {:error, 503, _} = reply
    assert ms < 3_000_000
  end
end
