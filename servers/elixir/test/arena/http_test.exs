defmodule Arena.HTTPTest do
  # One server for all (see test_helper.exs): K = 3, delay 500 ms, long-poll
  # 200 ms, bcrypt cost 4, default n = 10.
  use ExUnit.Case, async: false
  import Arena.TestClient

  defp timed(fun) do
    {micros, result} = :timer.tc(fun)
    {div(micros, 1000), result}
  end

  test "GET / is OK in plain text" do
    assert {200, "Content-Type: text/plain" <> _, "OK"} = request("GET", "/")
  end

  test "every third /hello waits, the others are answered at once" do
    # The count lives as long as the server: first find a delayed request,
    # so that the next one is the first of a cycle.
    hello_ms = fn -> elem(timed(fn -> request("GET", "/hello") end), 0) end
    Stream.repeatedly(hello_ms) |> Enum.find(&(&1 >= 500))

    assert {ms, {200, "Content-Type: text/html" <> _, "<p>hello</p>"}} =
             timed(fn -> request("GET", "/hello") end)

    assert ms < 250

    assert hello_ms.() < 250
    waiting = Task.async(hello_ms)
    Process.sleep(100)
    assert hello_ms.() < 250
    assert Task.await(waiting) >= 500
  end

  test "password set, verify, wrong and unknown" do
    assert {200, _, "OK"} = request("POST", "/password/set/alice", ~s({"password": "s3cret €"}))

    assert {200, _, "OK"} =
             request("POST", "/password/verify/alice", ~s({"password": "s3cret €"}))

    assert {403, _, _} = request("POST", "/password/verify/alice", ~s({"password": "s3cret"}))
    assert {404, _, _} = request("POST", "/password/verify/nobody", ~s({"password": "x"}))
  end

  test "password bodies and usernames that are refused" do
    for body <- [
          ~s({"password": "#{String.duplicate("€", 25)}"}),
          ~s({"password": 1}),
          ~s({"pass": "x"}),
          ~s({"password": "a\\u0000b"}),
          ~s(["password"]),
          ~s({"password": "x",}),
          ""
        ] do
      assert {400, _, message} = request("POST", "/password/set/bob", body), body
      assert message != ""
    end

    assert {400, _, _} = request("POST", "/password/set/bad%20name", ~s({"password": "x"}))
  end

  test "user set and get the same JSON, from any connection" do
    doc = ~s({"name": "Ada", "tags": ["教育", 1.5], "nested": {"ok": true, "none": null}})
    assert {200, _, "OK"} = request("POST", "/user/set/ada", doc)
    assert {200, "Content-Type: application/json" <> _, ^doc} = request("GET", "/user/get/ada")
    assert {200, _, "OK"} = request("POST", "/user/set/ada", ~s({"replaced": 1}))
    assert {200, _, ~s({"replaced": 1})} = request("GET", "/user/get/ada")
    assert {404, _, _} = request("GET", "/user/get/nobody")
    assert {400, _, _} = request("POST", "/user/set/ada", "[1, 2]")
    assert {400, _, _} = request("GET", "/user/get/bad%20name")
  end

  test "a body of 65536 bytes is taken, one more byte is 413" do
    object = fn size -> ~s({"pad":") <> String.duplicate("x", size - 10) <> ~s("}) end
    assert {200, _, "OK"} = request("POST", "/user/set/big", object.(65_536))
    assert {413, _, _} = request("POST", "/user/set/big", object.(65_537))
  end

  test "longPoll answers after its wait" do
    assert {ms, {200, _, "OK"}} = timed(fn -> request("GET", "/longPoll") end)
    assert ms >= 200
  end

  test "long-operation answers the checksum" do
    assert {200, "Content-Type: application/json" <> _, body} =
             request("GET", "/long-operation?n=1000")

    assert body == ~s({"message":"done","n":1000,"checksum":169238.799942987})

    assert {200, _, ~s({"message":"done","n":10,"checksum":10.676268897597582})} =
             request("GET", "/long-operation")

    assert {400, _, _} = request("GET", "/long-operation?n=0")
  end

  test "unknown paths are 404, wrong methods 405, other HTTP versions 505" do
    for path <- ["/nope", "/user/get/", "/user/get/a/b", "/hello/", "/longpoll"] do
      assert {404, _, _} = request("GET", path), path
    end

    for {method, path} <- [{"POST", "/"}, {"GET", "/password/set/u"}, {"DELETE", "/hello"}] do
      assert {405, _, _} = request(method, path), path
    end

    assert {505, _, _} = request("GET", "/", "", "HTTP/9.9")
  end

  test "a request with both Content-Length and chunked is refused, and what follows is never read" do
    chunks = "2\r\n{}\r\n0\r\n\r\nGET /user/get/smuggled HTTP/1.1\r\nHost: test\r\n\r\n"

    answer =
      raw([
        "POST /user/set/framing HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n",
        "Content-Length: #{byte_size(chunks)}\r\n\r\n",
        chunks
      ])

    assert answer =~ ~r/^HTTP\/1.1 400 /
    assert length(String.split(answer, "HTTP/1.1 ")) == 2
  end

  test "a Content-Length that is not plain digits is refused" do
    for length <- ["+2", "2, 2"] do
      answer = raw("POST /user/set/framing HTTP/1.1\r\nContent-Length: #{length}\r\n\r\n{}")
      assert answer =~ ~r/^HTTP\/1.1 400 /, length
    end
  end

  test "a NUL byte in a header value is refused" do
    answer = raw("GET / HTTP/1.1\r\nHost: test\r\nX-Note: a\0b\r\nConnection: close\r\n\r\n")
    assert answer =~ ~r/^HTTP\/1.1 400 /
  end
end
