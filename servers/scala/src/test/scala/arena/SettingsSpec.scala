package arena

import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec

import scala.concurrent.duration.*

class SettingsSpec extends AnyWordSpec with Matchers:
  "fromEnv" should {
    "use the contract's defaults for unset variables" in {
      Settings.fromEnv(Map.empty) shouldBe Right(
        Settings("127.0.0.1", 8080, 1, 10, 5.seconds, 2.seconds, 10, 50000, "../../spec/data", None, 8)
      )
    }
    "read every variable" in {
      val env = Map(
        "ARENA_HOST" -> "0.0.0.0",
        "ARENA_PORT" -> "9000",
        "ARENA_CPUS" -> "4",
        "ARENA_BCRYPT_COST" -> "4",
        "ARENA_LONGPOLL_MS" -> "0",
        "ARENA_HELLO_DELAY_MS" -> "1500",
        "ARENA_HELLO_DELAY_EVERY" -> "1",
        "ARENA_SORT_N" -> "200000",
        "ARENA_DATA_DIR" -> "/data",
        "ARENA_DB_URL" -> "postgresql://arena:s3cret@127.0.0.1:5433/arena",
        "ARENA_DB_POOL" -> "1000"
      )
      Settings.fromEnv(env) shouldBe Right(
        Settings(
          "0.0.0.0",
          9000,
          4,
          4,
          Duration.Zero,
          1500.millis,
          1,
          200000,
          "/data",
          Some(Database("jdbc:postgresql://127.0.0.1:5433/arena", "arena", "s3cret")),
          1000
        )
      )
    }
    "refuse a malformed or out-of-range value, naming it" in {
      val bad = Seq(
        "ARENA_PORT" -> "0",
        "ARENA_PORT" -> "65536",
        "ARENA_PORT" -> "http",
        "ARENA_CPUS" -> "0",
        "ARENA_CPUS" -> "1.5",
        "ARENA_BCRYPT_COST" -> "3",
        "ARENA_BCRYPT_COST" -> "32",
        "ARENA_LONGPOLL_MS" -> "-1",
        "ARENA_HELLO_DELAY_MS" -> "",
        "ARENA_HELLO_DELAY_EVERY" -> "0",
        "ARENA_SORT_N" -> "200001",
        "ARENA_HOST" -> "",
        "ARENA_DATA_DIR" -> "",
        "ARENA_DB_POOL" -> "0",
        "ARENA_DB_POOL" -> "1001",
        "ARENA_DB_POOL" -> "eight",
        "ARENA_DB_URL" -> "",
        "ARENA_DB_URL" -> "mysql://arena:arena@127.0.0.1/arena",
        "ARENA_DB_URL" -> "postgresql://arena:arena@127.0.0.1:5432",
        "ARENA_DB_URL" -> "not a url"
      )
      for (name, value) <- bad do
        withClue(s"$name=$value") {
          Settings.fromEnv(Map(name -> value)).left.map(_.startsWith(name)) shouldBe Left(true)
        }
    }
  }

  "databaseUrl" should {
    "take percent-encoded credentials apart from the JDBC URL, and leave the port to the driver when unset" in {
      Settings.databaseUrl("postgres://us%40er:p%3Aw:rd%2F@db.example/records") shouldBe Right(
        Database("jdbc:postgresql://db.example/records", "us@er", "p:w:rd/")
      )
    }
    "keep the password out of its message" in {
      Settings.databaseUrl("mysql://arena:s3cret@127.0.0.1/arena").left.map(_.contains("s3cret")) shouldBe Left(false)
    }
  }
