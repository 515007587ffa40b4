package arena

import com.zaxxer.hikari.{HikariConfig, HikariDataSource}
import spray.json.{JsObject, JsString, RootJsonWriter}

import scala.concurrent.{ExecutionContext, Future}
import scala.util.Using

/** A /record record; the JSON of an answer holds exactly these two fields. */
final case class Record(name: String, value: String)

object Record:
  given RootJsonWriter[Record] = record => JsObject("name" -> JsString(record.name), "value" -> JsString(record.value))

/** /record on PostgreSQL: one parameterised statement a call, in autocommit, on a connection of `pool` (None when
  * ARENA_DB_URL is unset). JDBC blocks its thread for the whole round trip, so every call runs on `dispatcher`, never
  * on the dispatcher that serves HTTP and actors. Each call answers the row the statement returned, if any.
  */
final class Records(pool: Option[HikariDataSource], dispatcher: ExecutionContext):
  /** None: the name exists, and its record is left as it was. */
  def create(record: Record): Future[Option[Record]] =
    run(
      "INSERT INTO record (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING name, value",
      record.name,
      record.value
    )

  def read(name: String): Future[Option[Record]] = run("SELECT name, value FROM record WHERE name = ?", name)

  def update(record: Record): Future[Option[Record]] =
    run("UPDATE record SET value = ? WHERE name = ? RETURNING name, value", record.value, record.name)

  def delete(name: String): Future[Option[Record]] =
    run("DELETE FROM record WHERE name = ? RETURNING name, value", name)

  private def run(sql: String, parameters: String*): Future[Option[Record]] =
    pool match
      case None       => Future.failed(Records.NoDatabase())
      case Some(pool) =>
        Future {
          Using.Manager { use =>
            val statement = use(use(pool.getConnection()).prepareStatement(sql))
            for (parameter, i) <- parameters.zipWithIndex do statement.setString(i + 1, parameter)
            val rows = use(statement.executeQuery())
            Option.when(rows.next())(Record(rows.getString(1), rows.getString(2)))
          }.get
        }(using dispatcher)

object Records:
  final class NoDatabase extends Exception("no database: ARENA_DB_URL is unset")

  /** A pool of at most `size` connections that opens them when requests need them (up to `size`, kept open for 10
    * minutes after their last use), so the server starts whether or not PostgreSQL is up.
    */
  def pool(database: Database, size: Int): HikariDataSource =
    val config = HikariConfig()
    config.setJdbcUrl(database.jdbcUrl)
    config.setUsername(database.user)
    config.setPassword(database.password)
    config.setMaximumPoolSize(size)
    config.setInitializationFailTimeout(-1)
    // With a minimum of idle connections, Hikari keeps trying to reopen them while the database is down, backing off
    // up to 5 s between tries, which could leave /record answering 503 for 5 s after the database is back. With none,
    // it tries only while a request waits, and a request after the outage connects at once.
    config.setMinimumIdle(0)
    // The contract wants a 503 within 5 s of losing the database: a request gives up on a connection after 2.5 s, and
    // on checking an idle one (Hikari's validation of a borrowed connection idle for more than 0.5 s) after 1 s.
    config.setConnectionTimeout(2500)
    config.setValidationTimeout(1000)
    // Hikari pings idle connections every 2 minutes by default; a ping is a statement the contract does not allow.
    // Broken connections are dropped all the same, when validated on loan or when a statement fails on them.
    config.setKeepaliveTime(0)
    HikariDataSource(config)
