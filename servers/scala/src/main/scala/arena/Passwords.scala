package arena

import at.favre.lib.crypto.bcrypt.BCrypt
import org.apache.pekko.Done
import org.apache.pekko.actor.typed.scaladsl.AskPattern.*
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem}
import org.apache.pekko.util.Timeout

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

enum Verdict:
  case Match, Mismatch, UnknownUser

/** bcrypt hashes in a Store actor. Hashing blocks a thread for the whole bcrypt run, so it runs on `blocking` (a
  * dedicated dispatcher), never on the dispatcher that serves HTTP and actors.
  */
final class Passwords(store: ActorRef[Store.Command[String]], cost: Int, blocking: ExecutionContext)(using
    system: ActorSystem[?]
):
  // A store answer takes microseconds; the timeout only bounds a broken actor.
  private given Timeout = 5.seconds
  private given ExecutionContext = system.executionContext

  def set(user: String, password: String): Future[Done] =
    Future(hash(password))(using blocking).flatMap(hashed => store.ask[Done](Store.Put(user, hashed, _)))

  /** An unknown user's password is hashed all the same, so the answer time does not tell which users exist. */
  def verify(user: String, password: String): Future[Verdict] =
    store.ask[Option[String]](Store.Get(user, _)).flatMap {
      case Some(hashed) =>
        Future {
          if BCrypt.verifyer().verify(password.toCharArray, hashed).verified then Verdict.Match
          else Verdict.Mismatch
        }(using blocking)
      case None => Future { hash(password); Verdict.UnknownUser }(using blocking)
    }

  private def hash(password: String): String = BCrypt.withDefaults().hashToString(cost, password.toCharArray)
