defmodule Arena.HTTP do
  @moduledoc """
  The HTTP server: mochiweb, as Debian packages it. mochiweb runs one Erlang
  process per connection, which reads each request on it and runs `handle/2`
  for it; waits and CPU work stay inside that process.
  """
  alias Arena.{Reply, Router}

  @linger_ms 1000
  @linger_bytes 1_048_576

  @doc "A child spec for mochiweb's listener, serving `config` with `page` as hello.html."
  def child_spec({config, page}) do
    ctx = %{config: config, page: page, hello_count: :atomics.new(1, signed: false)}

    options = [
      name: __MODULE__,
      ip: config.host,
      port: config.port,
      loop: &handle(&1, ctx),
      nodelay: true,
      backlog: 4096,
      # mochiweb stops accepting at 2048 open connections by default; the
      # heaviest scenario holds 10,000.
      max: 65_536
    ]

    %{id: __MODULE__, start: {:mochiweb_http, :start_link, [options]}}
  end

  @doc "The port listened on (the real one when 0 was asked for)."
  def port, do: :mochiweb_socket_server.get(__MODULE__, :port)

  @doc false
  def handle(req, ctx) do
    reply =
      cond do
        :mochiweb_request.get(:version, req) not in [{1, 0}, {1, 1}] ->
          {:error, 505, "HTTP version not supported"}

        problem = framing_problem(req) || header_problem(req) ->
          {:error, 400, problem}

        true ->
          Router.dispatch(req, ctx)
      end

    :mochiweb_request.respond(to_response(reply), req)

    if :mochiweb_request.should_close(req) do
      linger(:mochiweb_request.get(:socket, req))
    end
  end

  # A request whose length is stated both ways, or by a Content-Length that
  # is not plain digits (`+2`, `2, 40`; mochiweb gives header values as
  # charlists), is refused (RFC 9112, 6.1 and 6.3):
  # mochiweb would read the first by its chunks and the second as an Erlang
  # integer, then take what follows for the next request, which is how a
  # request is smuggled past a proxy that read it otherwise. Its body is left
  # unread, so mochiweb closes the connection after the answer.
  defp framing_problem(req) do
    length = :mochiweb_request.get_header_value("content-length", req)

    cond do
      length == :undefined ->
        nil

      :mochiweb_request.get_header_value("transfer-encoding", req) != :undefined ->
        "Content-Length and Transfer-Encoding together"

      not (to_string(length) =~ ~r/^[0-9]+$/) ->
        "Content-Length must be digits"

      true ->
        nil
    end
  end

  # mochiweb passes a NUL byte in a header value on to the application; RFC
  # 9110 (5.5) has the recipient refuse the message or replace it, since
  # code further on may end the value there while a proxy kept all of it.
  # mochiweb_headers keeps every value as a charlist, so this is a search
  # for the integer 0, with nothing copied.
  defp header_problem(req) do
    headers = :mochiweb_headers.to_list(:mochiweb_request.get(:headers, req))

    if Enum.any?(headers, fn {_name, value} -> 0 in value end) do
      "a NUL byte in a header value"
    end
  end

  # mochiweb closes the connection after this answer. Closing a socket with
  # unread input makes the kernel send a reset, which breaks a client still
  # sending its (say, too large) body before it can read the answer. So stop
  # writing, and discard what still comes for a bounded time first.
  defp linger(socket) do
    :gen_tcp.shutdown(socket, :write)
    drain(socket, System.monotonic_time(:millisecond) + @linger_ms, @linger_bytes)
  end

  defp drain(socket, deadline, left) do
    wait = deadline - System.monotonic_time(:millisecond)

    with true <- wait > 0 and left > 0,
         {:ok, data} <- :gen_tcp.recv(socket, 0, wait) do
      drain(socket, deadline, left - byte_size(data))
    end
  end

  defp to_response({:error, status, message}), do: Reply.text(status, message)
  defp to_response(response), do: response
end
