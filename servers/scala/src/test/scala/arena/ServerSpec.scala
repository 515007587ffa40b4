package arena

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.unmarshalling.Unmarshal
import org.scalatest.BeforeAndAfterAll
import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec

import scala.concurrent.duration.*
import scala.concurrent.{Await, Future, Promise}

/** The whole server on a real port, so the HTTP parser and application.conf take part. */
class ServerSpec extends AnyWordSpec with Matchers with BeforeAndAfterAll:
  private val settings = Settings.fromEnv(Map("ARENA_CPUS" -> "2", "ARENA_BCRYPT_COST" -> "4")).toOption.get
  private val bound = Promise[Http.ServerBinding]()
  // The test JVM must outlive this server.
  private val config = ConfigFactory.parseString("pekko.coordinated-shutdown.exit-jvm = off")
  private given system: ActorSystem[Nothing] = ActorSystem(
    Server(settings.copy(port = 0), "<p>hi</p>".getBytes, bound),
    "server-spec",
    config.withFallback(Server.config(settings))
  )
  private lazy val base = s"http://127.0.0.1:${Await.result(bound.future, 10.seconds).localAddress.getPort}"

  override def afterAll(): Unit =
    system.terminate()
    Await.ready(system.whenTerminated, 10.seconds)

  private def await[T](future: Future[T]): T = Await.result(future, 10.seconds)

  private def call(request: HttpRequest): (StatusCode, String) =
    val response = await(Http().singleRequest(request.withUri(base + request.uri)))
    (response.status, await(Unmarshal(response.entity).to[String]))

  /** A JSON object of exactly `size` bytes. */
  private def objectOfSize(size: Int) = "{\"pad\":\"" + "x" * (size - 10) + "\"}"

  "the server" should {
    "accept a body of exactly 65536 bytes and answer 413 above" in {
      val largest = objectOfSize(65536)
      call(HttpRequest(HttpMethods.POST, "/user/set/big", entity = HttpEntity(largest))) shouldBe (StatusCodes.OK, "OK")
      call(HttpRequest(uri = "/user/get/big")) shouldBe (StatusCodes.OK, largest)
      val (status, message) =
        call(HttpRequest(HttpMethods.POST, "/user/set/big2", entity = HttpEntity(objectOfSize(65537))))
      status shouldBe StatusCodes.ContentTooLarge
      message shouldBe "body larger than 65536 bytes"
    }
    "match usernames after percent-decoding" in {
      call(HttpRequest(HttpMethods.POST, "/user/set/a%2Db", entity = HttpEntity("{}")))._1 shouldBe StatusCodes.OK
      call(HttpRequest(uri = "/user/get/a-b")) shouldBe (StatusCodes.OK, "{}")
      call(HttpRequest(uri = "/user/get/a%2Fb"))._1 shouldBe StatusCodes.BadRequest
    }
  }

  "Server.config" should {
    "give every dispatcher exactly the core budget" in {
      val config = Server.config(settings)
      config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-min") shouldBe 2
      config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-max") shouldBe 2
      config.getString("pekko.actor.internal-dispatcher") shouldBe "pekko.actor.default-dispatcher"
      config.getInt("arena.blocking-dispatcher.thread-pool-executor.fixed-pool-size") shouldBe 2
    }
    "give the database dispatcher one thread per pooled connection" in {
      val config = Server.config(settings.copy(dbPool = 3))
      config.getInt("arena.database-dispatcher.thread-pool-executor.fixed-pool-size") shouldBe 3
    }
  }
