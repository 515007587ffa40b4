defmodule Arena.Request do
  @moduledoc """
  What the handlers take from a request: the username of the path and the
  JSON body, each refused with the status the contract gives.
  """

  alias Arena.JSON

  @max_body 65_536
  # bcrypt's own limit: longer input would be cut off silently.
  @max_password 72

  @typedoc "A mochiweb request: `{:mochiweb_request, fields}`, used as a tuple module."
  @type t :: tuple
  @type error :: {:error, pos_integer, String.t()}

  @doc "The percent-decoded path segment if it is a valid username."
  @spec username(binary) :: {:ok, binary} | error
  def username(segment) do
    name = URI.decode(segment)

    if name =~ ~r/\A[A-Za-z0-9_.-]{1,64}\z/,
      do: {:ok, name},
      else: {:error, 400, "invalid username"}
  rescue
    ArgumentError -> {:error, 400, "invalid username"}
  end

  @doc """
  The string `password` of a JSON object body. A NUL byte is refused as well:
  crypt(3) takes C strings and would ignore everything after it.
  """
  @spec password(t) :: {:ok, binary} | error
  def password(req) do
    with {:ok, body} <- body(req),
         true <- JSON.object?(body),
         {:struct, fields} <- decode(body),
         {"password", password} when is_binary(password) <- List.keyfind(fields, "password", 0),
         true <- byte_size(password) <= @max_password and not String.contains?(password, <<0>>) do
      {:ok, password}
    else
      {:error, _status, _message} = error -> error
      _ -> {:error, 400, ~s(body must be {"password": string of at most 72 bytes})}
    end
  end

  @doc "The raw body if it is a JSON object, ready to be sent back as it came."
  @spec json_object(t) :: {:ok, binary} | error
  def json_object(req) do
    with {:ok, body} <- body(req) do
      if JSON.object?(body), do: {:ok, body}, else: {:error, 400, "body must be a JSON object"}
    end
  end

  # Valid JSON that mochijson2 still cannot take (a number beyond float64,
  # a lone surrogate) is answered like an invalid body.
  defp decode(json) do
    :mochijson2.decode(json)
  catch
    _kind, _reason -> :error
  end

  # A body that cannot be read in full leaves the connection out of step, so
  # mochiweb is told to close it after the answer, through the process
  # dictionary flag its should_close/1 reads.
  defp body(req) do
    case :mochiweb_request.recv_body(@max_body, req) do
      :undefined -> {:ok, ""}
      body -> {:ok, body}
    end
  catch
    :exit, {:body_too_large, _} -> close({:error, 413, "body larger than 65536 bytes"})
    :exit, {:unknown_transfer_encoding, _} -> close({:error, 501, "unsupported transfer coding"})
    # A malformed Content-Length or chunk size.
    :error, _ -> close({:error, 400, "malformed body framing"})
  end

  defp close(error) do
    Process.put(:mochiweb_request_force_close, true)
    error
  end
end
