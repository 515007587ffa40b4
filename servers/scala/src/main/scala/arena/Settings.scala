package arena

import scala.concurrent.duration.*

/** The ARENA_* variables of spec/README.md. */
final case class Settings(
    host: String,
    port: Int,
    cpus: Int,
    bcryptCost: Int,
    longPoll: FiniteDuration,
    helloDelay: FiniteDuration,
    helloEvery: Int,
    sortN: Int,
    dataDir: String
)

object Settings:
  /** An O(n²) sort of more elements would hold a core for minutes. */
  val MaxSortN = 200000

  // FiniteDuration holds at most Long.MaxValue nanoseconds.
  private val MaxMillis = Long.MaxValue / 1000000

  /** The settings from `env`, or the first malformed variable: a server must never run with a silently different
    * setting than the one it was given.
    */
  def fromEnv(env: Map[String, String]): Either[String, Settings] =
    def text(name: String, default: String): Either[String, String] =
      env.get(name) match
        case None                          => Right(default)
        case Some(value) if value.nonEmpty => Right(value)
        case Some(_)                       => Left(s"$name is set but empty")

    def number(name: String, default: Long, min: Long, max: Long): Either[String, Long] =
      env.get(name) match
        case None        => Right(default)
        case Some(value) =>
          value.toLongOption
            .filter(n => n >= min && n <= max)
            .toRight {
              val range = if max >= Int.MaxValue then s">= $min" else s"in $min..$max"
              s"$name=\"$value\": want an integer $range"
            }

    def int(name: String, default: Int, min: Int, max: Int = Int.MaxValue): Either[String, Int] =
      number(name, default, min, max).map(_.toInt)

    def millis(name: String, default: Int): Either[String, FiniteDuration] =
      number(name, default, 0, MaxMillis).map(_.millis)

    for
      host <- text("ARENA_HOST", "127.0.0.1")
      port <- int("ARENA_PORT", 8080, 1, 65535)
      cpus <- int("ARENA_CPUS", 1, 1)
      cost <- int("ARENA_BCRYPT_COST", 10, 4, 31)
      longPoll <- millis("ARENA_LONGPOLL_MS", 5000)
      helloDelay <- millis("ARENA_HELLO_DELAY_MS", 2000)
      helloEvery <- int("ARENA_HELLO_DELAY_EVERY", 10, 1)
      sortN <- int("ARENA_SORT_N", 50000, 1, MaxSortN)
      dataDir <- text("ARENA_DATA_DIR", "../../spec/data")
    yield Settings(host, port, cpus, cost, longPoll, helloDelay, helloEvery, sortN, dataDir)
