package arena

import java.net.{URI, URISyntaxException}
import scala.concurrent.duration.*

/** The PostgreSQL of ARENA_DB_URL, as JDBC takes it: a URL without credentials, and the credentials apart. */
final case class Database(jdbcUrl: String, user: String, password: String)

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
    dataDir: String,
    database: Option[Database],
    dbPool: Int
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
      database <- env
        .get("ARENA_DB_URL")
        .fold[Either[String, Option[Database]]](Right(None))(databaseUrl(_).map(Some(_)))
      dbPool <- int("ARENA_DB_POOL", 8, 1, 1000)
    yield Settings(host, port, cpus, cost, longPoll, helloDelay, helloEvery, sortN, dataDir, database, dbPool)

  /** `postgresql://user:password@host:port/db` (percent-encoded credentials allowed). The message leaves the value out,
    * since it holds a password.
    */
  def databaseUrl(url: String): Either[String, Database] =
    val uri =
      try Some(URI(url))
      catch case _: URISyntaxException => None
    uri
      .filter(uri =>
        Set("postgresql", "postgres").contains(uri.getScheme) && uri.getHost != null && uri.getRawPath.length > 1
      )
      .map { uri =>
        val port = if uri.getPort == -1 then "" else s":${uri.getPort}"
        // getUserInfo is percent-decoded, so it is split at its first ':': a password may hold one, a user name not.
        val credentials = Option(uri.getUserInfo).fold(Array.empty[String])(_.split(":", 2))
        Database(
          s"jdbc:postgresql://${uri.getHost}$port${uri.getRawPath}",
          credentials.headOption.getOrElse(""),
          credentials.lift(1).getOrElse("")
        )
      }
      .toRight("ARENA_DB_URL is set but not postgresql://user:password@host:port/db")
