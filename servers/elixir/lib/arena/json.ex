defmodule Arena.JSON do
  @moduledoc """
  Strict JSON validation (RFC 8259, UTF-8). mochijson2, the only JSON codec
  at hand, is lenient: it takes trailing commas, non-string keys, unknown
  escapes and raw control characters, which the contract counts as invalid.
  """

  defguardp is_hex(c) when c in ?0..?9 or c in ?a..?f or c in ?A..?F

  @doc "Whether `text` is one JSON value, with optional white space around it."
  @spec valid?(binary) :: boolean
  def valid?(text) do
    String.valid?(text) and
      case value(ws(text)) do
        {:ok, rest} -> ws(rest) == ""
        :error -> false
      end
  end

  @doc "Whether `text` is valid JSON and an object."
  @spec object?(binary) :: boolean
  def object?(text), do: match?("{" <> _, ws(text)) and valid?(text)

  defp ws(<<c, rest::binary>>) when c in ~c" \t\r\n", do: ws(rest)
  defp ws(text), do: text

  # Each parser takes the text at its start and returns what follows it.
  defp value("{" <> rest), do: object(ws(rest))
  defp value("[" <> rest), do: array(ws(rest))
  defp value("\"" <> rest), do: string(rest)
  defp value("true" <> rest), do: {:ok, rest}
  defp value("false" <> rest), do: {:ok, rest}
  defp value("null" <> rest), do: {:ok, rest}
  defp value(text), do: number(text)

  defp object("}" <> rest), do: {:ok, rest}
  defp object(text), do: members(text)

  defp members("\"" <> rest) do
    with {:ok, rest} <- string(rest),
         ":" <> rest <- ws(rest),
         {:ok, rest} <- value(ws(rest)) do
      case ws(rest) do
        "," <> rest -> members(ws(rest))
        "}" <> rest -> {:ok, rest}
        _ -> :error
      end
    else
      _ -> :error
    end
  end

  defp members(_text), do: :error

  defp array("]" <> rest), do: {:ok, rest}
  defp array(text), do: elements(text)

  defp elements(text) do
    with {:ok, rest} <- value(text) do
      case ws(rest) do
        "," <> rest -> elements(ws(rest))
        "]" <> rest -> {:ok, rest}
        _ -> :error
      end
    end
  end

  defp string("\"" <> rest), do: {:ok, rest}
  defp string(<<?\\, c, rest::binary>>) when c in ~c(" \\ / b f n r t), do: string(rest)

  defp string(<<?\\, ?u, a, b, c, d, rest::binary>>)
       when is_hex(a) and is_hex(b) and is_hex(c) and is_hex(d),
       do: string(rest)

  defp string(<<c, rest::binary>>) when c >= 0x20 and c != ?\\, do: string(rest)
  defp string(_text), do: :error

  # -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  defp number("-" <> rest), do: integer(rest)
  defp number(text), do: integer(text)

  defp integer("0" <> rest), do: fraction(rest)
  defp integer(<<d, _::binary>> = text) when d in ?1..?9, do: text |> digits() |> fraction()
  defp integer(_text), do: :error

  defp fraction("." <> rest), do: with({:ok, rest} <- some_digits(rest), do: exponent(rest))
  defp fraction(text), do: exponent(text)

  defp exponent(<<e, sign, rest::binary>>) when e in ~c"eE" and sign in ~c"+-",
    do: some_digits(rest)

  defp exponent(<<e, rest::binary>>) when e in ~c"eE", do: some_digits(rest)
  defp exponent(text), do: {:ok, text}

  defp some_digits(<<d, _::binary>> = text) when d in ?0..?9, do: {:ok, digits(text)}
  defp some_digits(_text), do: :error

  defp digits(<<d, rest::binary>>) when d in ?0..?9, do: digits(rest)
  defp digits(text), do: text
end
