defmodule Arena.Password do
  @moduledoc "`/password/set` and `/password/verify`: bcrypt hashes in the store."
  alias Arena.{Bcrypt, Reply, Request, Store}

  def set(req, %{config: config}, segment) do
    with {:ok, name} <- Request.username(segment),
         {:ok, password} <- Request.password(req) do
      {:ok, hash} = Bcrypt.hash(password, config.bcrypt_cost)
      Store.put_password(name, hash)
      Reply.ok()
    end
  end

  def verify(req, %{config: config}, segment) do
    with {:ok, name} <- Request.username(segment),
         {:ok, password} <- Request.password(req) do
      case Store.fetch_password(name) do
        {:ok, hash} ->
          if Bcrypt.verify(password, hash), do: Reply.ok(), else: {:error, 403, "wrong password"}

        :error ->
          # The same bcrypt work as for a known user, so the answer time does
          # not tell which usernames exist.
          {:ok, _hash} = Bcrypt.hash(password, config.bcrypt_cost)
          {:error, 404, "unknown user"}
      end
    end
  end
end
