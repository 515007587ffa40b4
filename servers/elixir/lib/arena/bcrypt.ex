defmodule Arena.Bcrypt do
  @moduledoc """
  bcrypt (`$2b$`) through a NIF over the system's libxcrypt (`c_src/`).

  Both functions run on dirty CPU schedulers, so a hash in progress never
  holds up the schedulers that serve other requests.
  """

  @on_load :load_nif

  @doc false
  def load_nif do
    :arena
    |> :code.priv_dir()
    |> Path.join("bcrypt_nif")
    |> String.to_charlist()
    |> :erlang.load_nif(0)
  end

  @doc "Hashes `password` (at most 72 bytes, no NUL byte) with a fresh random salt at `cost`."
  @spec hash(binary, 4..31) :: {:ok, binary} | {:error, atom}
  def hash(_password, _cost), do: :erlang.nif_error(:nif_not_loaded)

  @doc "Whether `password` matches a hash made by `hash/2`, compared in constant time."
  @spec verify(binary, binary) :: boolean
  def verify(_password, _hash), do: :erlang.nif_error(:nif_not_loaded)
end
