package arena

import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.actor.typed.scaladsl.adapter.*
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.testkit.{RouteTestTimeout, ScalatestRouteTest}
import org.apache.pekko.util.ByteString
import org.scalatest.matchers.should.Matchers
import org.scalatest.wordspec.AnyWordSpec
import spray.json.*

import scala.concurrent.duration.*

class RoutesSpec extends AnyWordSpec with Matchers with ScalatestRouteTest:
  private given RouteTestTimeout = RouteTestTimeout(5.seconds)

  private val settings = Settings(
    host = "127.0.0.1",
    port = 0,
    cpus = 1,
    bcryptCost = 4,
    longPoll = 200.millis,
    helloDelay = 300.millis,
    helloEvery = 3,
    sortN = 10,
    dataDir = ".",
    database = None,
    dbPool = 1
  )
  private val page = "<!DOCTYPE html><p>test page</p>".getBytes("UTF-8")

  // Sealed as the server seals it, so rejections become the answers clients see. No database: a request that passes
  // validation is answered 503, so a 400 shows that validation came first.
  private val route = Route.seal {
    given ActorSystem[Nothing] = system.toTyped
    val blocking = system.dispatchers.lookup("arena.blocking-dispatcher")
    val passwords = Passwords(system.spawn(Store[String](), "passwords"), settings.bcryptCost, blocking)
    val records = Records(None, system.dispatchers.lookup("arena.database-dispatcher"))
    Routes(settings, page, passwords, system.spawn(Store[ByteString](), "users"), records, blocking).route
  }

  private def json(method: HttpMethod, uri: String, body: String) =
    HttpRequest(method, uri, entity = HttpEntity(ContentTypes.`application/json`, body))

  private def timed[T](block: => T): (T, FiniteDuration) =
    val start = System.nanoTime()
    val result = block
    (result, (System.nanoTime() - start).nanos)

  "GET /" should {
    "answer OK as text" in {
      Get("/") ~> route ~> check {
        status shouldBe StatusCodes.OK
        contentType shouldBe ContentTypes.`text/plain(UTF-8)`
        responseAs[String] shouldBe "OK"
      }
    }
  }

  "GET /hello" should {
    "answer the page, delaying exactly every K-th request" in {
      val delays = (1 to 6).map { _ =>
        timed(Get("/hello") ~> route ~> check {
          contentType shouldBe ContentTypes.`text/html(UTF-8)`
          responseAs[Array[Byte]] shouldBe page
        })._2
      }
      delays.map(_ >= settings.helloDelay) shouldBe Seq(false, false, true, false, false, true)
    }
  }

  "POST /password" should {
    "set, then verify with 200, 403 and 404" in {
      json(HttpMethods.POST, "/password/set/alice", """{"password":"correct horse"}""") ~> route ~> check {
        status shouldBe StatusCodes.OK
        responseAs[String] shouldBe "OK"
      }
      json(HttpMethods.POST, "/password/verify/alice", """{"password":"correct horse"}""") ~> route ~> check {
        status shouldBe StatusCodes.OK
      }
      json(HttpMethods.POST, "/password/verify/alice", """{"password":"wrong horse"}""") ~> route ~> check {
        status shouldBe StatusCodes.Forbidden
      }
      json(HttpMethods.POST, "/password/verify/nobody", """{"password":"correct horse"}""") ~> route ~> check {
        status shouldBe StatusCodes.NotFound
      }
    }
    "refuse bad usernames and bodies with 400 and a message" in {
      for (uri, body) <- Seq(
          "/password/set/bad%20name" -> """{"password":"x"}""",
          s"/password/set/${"x" * 65}" -> """{"password":"x"}""",
          "/password/set/bob" -> "{not json",
          "/password/set/bob" -> "",
          "/password/verify/bob" -> """{"password":12345}""",
          "/password/verify/bob" -> s"""{"password":"${"a" * 73}"}"""
        )
      do
        json(HttpMethods.POST, uri, body) ~> route ~> check {
          withClue(s"$uri $body")(status shouldBe StatusCodes.BadRequest)
          responseAs[String] should not be empty
        }
    }
  }

  "/user" should {
    "store a JSON object and return it as it was sent" in {
      val body = """{"name": "Ada", "tags": ["math", "教育"], "ratio": 0.25, "none": null}"""
      json(HttpMethods.POST, "/user/set/ada", body) ~> route ~> check(status shouldBe StatusCodes.OK)
      Get("/user/get/ada") ~> route ~> check {
        contentType shouldBe ContentTypes.`application/json`
        responseAs[String] shouldBe body
      }
      Get("/user/get/nobody") ~> route ~> check(status shouldBe StatusCodes.NotFound)
    }
    "refuse a body that is not a JSON object" in {
      json(HttpMethods.POST, "/user/set/u400", "[1, 2]") ~> route ~> check(status shouldBe StatusCodes.BadRequest)
      Get("/user/get/u400") ~> route ~> check(status shouldBe StatusCodes.NotFound)
    }
  }

  "GET /longPoll" should {
    "answer OK after the configured wait" in {
      val (_, took) = timed(Get("/longPoll") ~> route ~> check(responseAs[String] shouldBe "OK"))
      took should be >= settings.longPoll
    }
  }

  "GET /long-operation" should {
    "answer the checksum as JSON, for n or ARENA_SORT_N" in {
      Get("/long-operation?n=1000") ~> route ~> check {
        contentType shouldBe ContentTypes.`application/json`
        responseAs[String].parseJson shouldBe
          JsObject("message" -> JsString("done"), "n" -> JsNumber(1000), "checksum" -> JsNumber(169238.799942987))
      }
      Get("/long-operation") ~> route ~> check {
        responseAs[String].parseJson.asJsObject.fields("checksum") shouldBe JsNumber(10.676268897597582)
      }
    }
    "refuse an n that is not 1..200000 in decimal digits" in {
      for n <- Seq("0", "200001", "-1", "abc", "1.5", "", "1e3", "%2B5") do
        Get(s"/long-operation?n=$n") ~> route ~> check(withClue(n)(status shouldBe StatusCodes.BadRequest))
    }
  }

  "/record" should {
    "refuse bad names, bodies and values with 400 before asking the database" in {
      for uri <- Seq(
          "/record",
          "/record?name=",
          "/record?name=bad%20name",
          s"/record?name=${"y" * 65}",
          "/record?nam=a"
        )
      do
        for request <- Seq(Get(uri), Delete(uri)) do
          request ~> route ~> check {
            withClue(s"${request.method.value} $uri")(status shouldBe StatusCodes.BadRequest)
            responseAs[String] should not be empty
          }
      for
        body <- Seq(
          "[1, 2]",
          "null",
          "{bad json",
          "",
          """{"value": "x"}""",
          """{"name": "a"}""",
          """{"name": "a", "value": 5}""",
          """{"name": "a", "value": null}""",
          """{"name": "bad name", "value": "x"}""",
          """{"name": "", "value": "x"}""",
          s"""{"name": "a", "value": "${"é" * 512}x"}""",
          """{"name": "a", "value": "nul\u0000"}"""
        )
        method <- Seq(HttpMethods.PUT, HttpMethods.POST)
      do
        json(method, "/record", body) ~> route ~> check {
          withClue(s"${method.value} $body")(status shouldBe StatusCodes.BadRequest)
          responseAs[String] should not be empty
        }
    }
    "answer 503 with a message when no database is configured" in {
      for request <- Seq(
          json(HttpMethods.PUT, "/record", """{"name": "a", "value": "x", "other": 1}"""),
          json(HttpMethods.POST, "/record", s"""{"name": "a", "value": "${"é" * 512}"}"""),
          Get("/record?name=a%2Db"),
          Delete("/record?name=a")
        )
      do
        request ~> route ~> check {
          status shouldBe StatusCodes.ServiceUnavailable
          responseAs[String] shouldBe "no database: ARENA_DB_URL is unset"
        }
    }
    "answer 405 for other methods" in {
      json(HttpMethods.PATCH, "/record", """{"name": "a", "value": "x"}""") ~> route ~> check {
        status shouldBe StatusCodes.MethodNotAllowed
      }
    }
  }

  "routing" should {
    "answer 404 for unknown paths and 405 for wrong methods" in {
      for path <- Seq("/nope", "/user/get/", "/user/get/a/b", "/hello/x", "/longpoll") do
        Get(path) ~> route ~> check(withClue(path)(status shouldBe StatusCodes.NotFound))
      for request <- Seq(Post("/"), Delete("/hello"), Get("/password/set/u"), Post("/user/get/u"), Put("/longPoll"))
      do
        request ~> route ~> check {
          withClue(request.uri)(status shouldBe StatusCodes.MethodNotAllowed)
          responseAs[String] should not be empty
        }
    }
  }
