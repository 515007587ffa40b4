package arena

import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec
import spray.json.*

import java.sql.SQLTransientConnectionException
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.util.Using

/** Records on a live PostgreSQL: the tests that need one read ARENA_DB_URL (`./arena test scala` sets it to a
  * throw-away database holding spec/data/record.sql) and are canceled, ScalaTest's skip, when it is unset.
  */
class RecordsSpec extends AnyWordSpec with Matchers:
  private given ExecutionContext = ExecutionContext.global

  private def await[T](future: Future[T]): T = Await.result(future, 10.seconds)

  /** Runs `test` on Records over a pool of `size` connections to the database of ARENA_DB_URL. */
  private def withDatabase(size: Int)(test: Records => Unit): Unit =
    val url = sys.env.get("ARENA_DB_URL")
    assume(url.isDefined, "ARENA_DB_URL is unset: no database to test against")
    Using.resource(Records.pool(Settings.databaseUrl(url.get).toOption.get, size)) { pool =>
      test(Records(Some(pool), ExecutionContext.global))
    }

  "Record" should {
    "be exactly its two fields in JSON" in {
      Record("a", "x'\"\u00e9").toJson shouldBe JsObject("name" -> JsString("a"), "value" -> JsString("x'\"é"))
    }
  }

  "Records" should {
    "create, read, update and delete, with None for a taken or unknown name" in withDatabase(2) { records =>
      val (first, second) = (Record("spec.crud", "first"), Record("spec.crud", "second"))
      await(records.delete(first.name))
      await(records.create(first)) shouldBe Some(first)
      await(records.create(second)) shouldBe None
      await(records.read(first.name)) shouldBe Some(first)
      await(records.update(second)) shouldBe Some(second)
      await(records.update(Record("spec.nobody", "x"))) shouldBe None
      await(records.read("spec.nobody")) shouldBe None
      await(records.delete(first.name)) shouldBe Some(second)
      await(records.delete(first.name)) shouldBe None
      await(records.read("r42")) shouldBe Some(Record("r42", "value of r42"))
    }
    "store SQL-like and non-ASCII text as data" in withDatabase(2) { records =>
      for (value, i) <- Seq("x' OR '1'='1", "'; DROP TABLE record; --", "$1 \\ %s ? :name", "é" * 512, "").zipWithIndex
      do
        val record = Record(s"spec.data$i", value)
        await(records.create(record)) shouldBe Some(record)
        await(records.delete(record.name)) shouldBe Some(record)
    }
    "create a new name once under concurrent creates" in withDatabase(3) { records =>
      await(records.delete("spec.race"))
      val created = await(Future.sequence((1 to 12).map(i => records.create(Record("spec.race", s"from $i")))))
      created.flatten should have size 1
      await(records.read("spec.race")) shouldBe created.flatten.headOption
      await(records.delete("spec.race"))
    }
    "fail as unavailable within 5 s when the database cannot be reached" in {
      // Port 1 on the loopback: nothing listens there, so every connection attempt is refused.
      val unreachable = Database("jdbc:postgresql://127.0.0.1:1/arena", "arena", "arena")
      Using.resource(Records.pool(unreachable, 1)) { pool =>
        val started = System.nanoTime()
        val error = await(Records(Some(pool), ExecutionContext.global).read("r42").failed)
        (System.nanoTime() - started).nanos should be < 5.seconds
        error shouldBe a[SQLTransientConnectionException]
        Routes.unreachable(error) shouldBe true
      }
    }
  }
