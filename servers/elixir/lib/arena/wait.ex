defmodule Arena.Wait do
  @moduledoc """
  The endpoints that wait. `Process.sleep/1` suspends only the connection's
  own process, so a waiting request holds no scheduler and nobody else waits.
  """
  alias Arena.Reply

  @doc """
  `/hello`: every K-th request, counted over all connections, waits before
  the page. The count is one atomic add, so no two requests get the same one.
  """
  def hello(_req, %{config: config, page: page, hello_count: count}) do
    if rem(:atomics.add_get(count, 1, 1), config.hello_every) == 0 do
      Process.sleep(config.hello_delay_ms)
    end

    Reply.html(page)
  end

  @doc "`/longPoll`: OK after the configured wait."
  def long_poll(_req, %{config: config}) do
    Process.sleep(config.longpoll_ms)
    Reply.ok()
  end
end
