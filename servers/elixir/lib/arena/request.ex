defmodule Arena.Request do
  @moduledoc """
  What the handlers take from a request: the username of the path, the
  record name of the query and the JSON body, each refused with the status
  the contract gives.
  """

  alias Arena.JSON

  @max_body 65_536
  # bcrypt's own limit: longer input would be cut off silently.
  @max_password 72
  @max_value 1024
  @name ~r/\A[A-Za-z0-9_.-]{1,64}\z/

  @typedoc "A mochiweb request: `{:mochiweb_request, fields}`, used as a tuple module."
  @type t :: tuple
  @type error :: {:error, pos_integer, String.t()}

  @doc "The percent-decoded path segment if it is a valid username."
  @spec username(binary) :: {:ok, binary} | error
  def username(segment) do
    name = URI.decode(segment)
    if name =~ @name, do: {:ok, name}, else: {:error, 400, "invalid username"}
  rescue
    ArgumentError -> {:error, 400, "invalid username"}
  end

  @doc "The percent-decoded `name` of the query (the first one if repeated) if it is valid."
  @spec record_name(t) :: {:ok, binary} | error
  def record_name(req) do
    with {_, name} <- List.keyfind(:mochiweb_request.parse_qs(req), ~c"name", 0),
         name = :erlang.list_to_binary(name),
         true <- name =~ @name do
      {:ok, name}
    else
      _ -> {:error, 400, "name must match ^[A-Za-z0-9_.-]{1,64}$"}
    end
  end

  @doc """
  The string `password` of a JSON object body. A NUL byte is refused as well:
  crypt(3) takes C strings and would ignore everything after it.
  """
  @spec password(t) :: {:ok, binary} | error
  def password(req) do
    with {:ok, body} <- body(req),
         {:ok, fields} <- object_fields(body),
         {"password", password} when is_binary(password) <- List.keyfind(fields, "password", 0),
         true <- byte_size(password) <= @max_password and not String.contains?(password, <<0>>) do
      {:ok, password}
    else
      {:error, _status, _message} = error -> error
      _ -> {:error, 400, ~s(body must be {"password": string of at most 72 bytes})}
    end
  end

  @doc """
  The string `name` and `value` of a JSON object body. The value is refused
  when it holds a NUL character, which PostgreSQL's text cannot store.
  """
  @spec record(t) :: {:ok, binary, binary} | error
  def record(req) do
    with {:ok, body} <- body(req),
         {:ok, fields} <- object_fields(body),
         {:ok, name} <- record_field(fields, "name", &(&1 =~ @name)),
         {:ok, value} <- record_field(fields, "value", &valid_value?/1) do
      {:ok, name, value}
    end
  end

  defp object_fields(body) do
    with true <- JSON.object?(body),
         {:struct, fields} <- decode(body) do
      {:ok, fields}
    else
      _ -> {:error, 400, "body must be a JSON object"}
    end
  end

  defp record_field(fields, key, valid?) do
    case List.keyfind(fields, key, 0) do
      {^key, text} when is_binary(text) ->
        if valid?.(text), do: {:ok, text}, else: field_error(key)

      _ ->
        field_error(key)
    end
  end

  defp valid_value?(text),
    do: byte_size(text) <= @max_value and not String.contains?(text, <<0>>)

  defp field_error("name"),
    do: {:error, 400, "name must be a string matching ^[A-Za-z0-9_.-]{1,64}$"}

  defp field_error("value"),
    do: {:error, 400, "value must be a string of at most 1024 bytes, no NUL"}

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
