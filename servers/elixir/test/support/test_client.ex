defmodule Arena.TestClient do
  @moduledoc "Requests to the test server of test_helper.exs, over real TCP connections."

  @doc """
  Sends one request on its own connection and reads the answer to the end:
  `{status, the Content-Type header line, body}`.
  """
  def request(method, path, body \\ "", version \\ "HTTP/1.1") do
    {head, answer} =
      raw([
        "#{method} #{path} #{version}\r\nHost: test\r\nConnection: close\r\n",
        "Content-Length: #{byte_size(body)}\r\n\r\n",
        body
      ])
      |> String.split("\r\n\r\n", parts: 2)
      |> List.to_tuple()

    [status_line | headers] = String.split(head, "\r\n")
    [_version, status | _reason] = String.split(status_line, " ")
    type = Enum.find_value(headers, "", &(String.downcase(&1) =~ "content-type" && &1))
    {String.to_integer(status), type, answer}
  end

  @doc "Sends `bytes` as they are on a connection of their own; what came back until the close."
  def raw(bytes) do
    {:ok, socket} = :gen_tcp.connect({127, 0, 0, 1}, Arena.HTTP.port(), [:binary, active: false])
    :ok = :gen_tcp.send(socket, bytes)
    read_all(socket, "")
  end

  defp read_all(socket, acc) do
    case :gen_tcp.recv(socket, 0, 10_000) do
      {:ok, data} -> read_all(socket, acc <> data)
      {:error, :closed} -> acc
    end
  end
end
