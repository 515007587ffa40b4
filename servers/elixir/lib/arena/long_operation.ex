defmodule Arena.LongOperation do
  @moduledoc """
  `/long-operation`: the bubble sort of `Arena.Sort`, run in the connection's
  own process as the honours report's server did. The scheduler preempts it
  by reductions, so other requests are still served meanwhile.
  """
  alias Arena.{Config, Reply, Sort}

  @max_n Config.max_sort_n()

  def run(req, %{config: config}) do
    with {:ok, n} <- size(:mochiweb_request.parse_qs(req), config.sort_n) do
      checksum = n |> Sort.lcg_array() |> Sort.bubble_sort_desc() |> Sort.checksum()
      # Float.to_string/1 prints the shortest form that parses back to the same float.
      Reply.json(~s({"message":"done","n":#{n},"checksum":#{Float.to_string(checksum)}}))
    end
  end

  @doc "n from the query (the first one if repeated): decimal digits only, in 1..200000."
  @spec size([{charlist, charlist}], pos_integer) ::
          {:ok, pos_integer} | {:error, 400, String.t()}
  def size(query, default) do
    case List.keyfind(query, ~c"n", 0) do
      nil -> {:ok, default}
      {_, digits} -> parse_n(digits)
    end
  end

  defp parse_n(digits) do
    with true <- digits != [] and Enum.all?(digits, &(&1 in ?0..?9)),
         n when n >= 1 and n <= @max_n <- List.to_integer(digits) do
      {:ok, n}
    else
      _ -> {:error, 400, "n must be decimal digits in 1..#{@max_n}"}
    end
  end
end
