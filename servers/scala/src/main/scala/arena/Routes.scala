package arena

import org.apache.pekko.Done
import org.apache.pekko.actor.typed.scaladsl.AskPattern.*
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem}
import org.apache.pekko.http.scaladsl.marshallers.sprayjson.SprayJsonSupport.*
import org.apache.pekko.http.scaladsl.model.{
  ContentTypes,
  EntityStreamSizeException,
  HttpEntity,
  StatusCode,
  StatusCodes
}
import org.apache.pekko.http.scaladsl.server.Directives.*
import org.apache.pekko.http.scaladsl.server.{
  Directive0,
  Directive1,
  MalformedRequestContentRejection,
  RejectionHandler,
  Route,
  ValidationRejection
}
import org.apache.pekko.pattern.after
import org.apache.pekko.util.{ByteString, Timeout}
import spray.json.{JsNumber, JsObject, JsString}

import java.sql.{SQLException, SQLTransientConnectionException}
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success}

/** The contract's endpoints. Unknown paths (404), wrong methods (405) and failed validations (400) are answered by
  * Pekko's default rejection handler, all with short text.
  */
final class Routes(
    settings: Settings,
    helloPage: Array[Byte],
    passwords: Passwords,
    users: ActorRef[Store.Command[ByteString]],
    records: Records,
    blocking: ExecutionContext
)(using system: ActorSystem[?]):
  import Bodies.given

  private given ExecutionContext = system.executionContext
  // A store answer takes microseconds; the timeout only bounds a broken actor.
  private given Timeout = 5.seconds

  private val hello = HttpEntity(ContentTypes.`text/html(UTF-8)`, helloPage)
  // One count for the whole server: every connection's /hello goes through this one atomic.
  private val hellos = AtomicLong()

  val route: Route = handleRejections(Routes.rejections) {
    concat(
      pathSingleSlash {
        get(complete("OK"))
      },
      path("hello") {
        get(complete(answerHello()))
      },
      path("password" / "set" / Segment) { name =>
        post {
          (validUsername(name) & entity(as[Password])) { password =>
            onSuccess(passwords.set(name, password.value))(_ => complete("OK"))
          }
        }
      },
      path("password" / "verify" / Segment) { name =>
        post {
          (validUsername(name) & entity(as[Password])) { password =>
            onSuccess(passwords.verify(name, password.value)) {
              case Verdict.Match       => complete("OK")
              case Verdict.Mismatch    => complete(StatusCodes.Forbidden, "wrong password")
              case Verdict.UnknownUser => complete(StatusCodes.NotFound, "unknown user")
            }
          }
        }
      },
      path("user" / "set" / Segment) { name =>
        post {
          (validUsername(name) & entity(as[UserJson])) { user =>
            onSuccess(users.ask[Done](Store.Put(name, user.bytes, _)))(_ => complete("OK"))
          }
        }
      },
      path("user" / "get" / Segment) { name =>
        get {
          validUsername(name) {
            onSuccess(users.ask[Option[ByteString]](Store.Get(name, _))) {
              case Some(json) => complete(HttpEntity(ContentTypes.`application/json`, json))
              case None       => complete(StatusCodes.NotFound, "unknown user")
            }
          }
        }
      },
      path("longPoll") {
        // A scheduler timer, not a sleeping thread: waiting polls hold no thread at all.
        get(complete(after(settings.longPoll)(Future.successful("OK"))))
      },
      path("long-operation") {
        get {
          parameter("n".optional) { text =>
            text.fold(Some(settings.sortN))(LongOperation.parseN) match
              case Some(n) => complete(sort(n))
              case None    => complete(StatusCodes.BadRequest, s"n must be decimal digits in 1..${Settings.MaxSortN}")
          }
        }
      },
      // Every check (name, body, value) is made by the directives before a statement is sent.
      path("record") {
        concat(
          put(entity(as[Record])(r => answer(records.create(r), StatusCodes.Created, Routes.Exists))),
          get(recordName(name => answer(records.read(name), StatusCodes.OK, Routes.Unknown))),
          post(entity(as[Record])(r => answer(records.update(r), StatusCodes.OK, Routes.Unknown))),
          delete(recordName(name => answer(records.delete(name), StatusCodes.OK, Routes.Unknown)))
        )
      }
    )
  }

  /** Every K-th /hello waits on a scheduler timer; the others, and everyone else, go on meanwhile. */
  private def answerHello(): Future[HttpEntity.Strict] =
    if hellos.incrementAndGet() % settings.helloEvery == 0 then after(settings.helloDelay)(Future.successful(hello))
    else Future.successful(hello)

  /** The sort is seconds of CPU: it runs on the blocking dispatcher, as bcrypt does. */
  private def sort(n: Int): Future[JsObject] =
    Future(LongOperation.checksum(n))(using blocking).map { checksum =>
      JsObject("message" -> JsString("done"), "n" -> JsNumber(n), "checksum" -> JsNumber(checksum))
    }

  /** {username} after Pekko's percent-decoding of the path segment. */
  private def validUsername(name: String): Directive0 =
    validate(Bodies.Name.matches(name), "invalid username")

  /** `?name=`, percent-decoded by Pekko. */
  private val recordName: Directive1[String] =
    parameter("name".withDefault("")).filter(
      Bodies.Name.matches,
      ValidationRejection("query needs a name matching [A-Za-z0-9_.-]{1,64}")
    )

  /** The record the statement returned with `found`, `missing` when it returned none. */
  private def answer(outcome: Future[Option[Record]], found: StatusCode, missing: (StatusCode, String)): Route =
    onComplete(outcome) {
      case Success(Some(record))                       => complete(found, record)
      case Success(None)                               => complete(missing)
      case Failure(error: Records.NoDatabase)          => complete(StatusCodes.ServiceUnavailable, error.getMessage)
      case Failure(error) if Routes.unreachable(error) =>
        system.log.warn("/record: database unavailable: {}", error.toString)
        complete(StatusCodes.ServiceUnavailable, "database unavailable")
      // The client gets a short line; the log gets the stack trace.
      case Failure(error) =>
        system.log.error("/record: database error", error)
        complete(StatusCodes.InternalServerError, "database error")
    }

object Routes:
  private val Exists = StatusCodes.Conflict -> "record exists"
  private val Unknown = StatusCodes.NotFound -> "no such record"

  /** The database cannot be reached, which is a 503 rather than a 500: no connection within the pool's timeout
    * (Hikari's SQLTransientConnectionException), a connection lost (SQLSTATE class 08) or the server shutting down
    * (57P).
    */
  def unreachable(error: Throwable): Boolean =
    error match
      case _: SQLTransientConnectionException => true
      case e: SQLException => Option(e.getSQLState).exists(state => state.startsWith("08") || state.startsWith("57P"))
      case _               => false

  /** The default handler reports a body over `max-content-length` as 413 "The request content was malformed" with a
    * paragraph about Pekko settings; clients get one short line instead.
    */
  val rejections: RejectionHandler = RejectionHandler
    .newBuilder()
    .handle { case MalformedRequestContentRejection(_, tooLarge: EntityStreamSizeException) =>
      complete(StatusCodes.ContentTooLarge, s"body larger than ${tooLarge.limit} bytes")
    }
    .result()
    .withFallback(RejectionHandler.default)
