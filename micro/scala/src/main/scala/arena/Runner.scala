package arena

import org.apache.pekko.actor.typed.Behavior
import org.apache.pekko.actor.typed.scaladsl.Behaviors

import scala.concurrent.Promise

/** The actor system's guardian. It runs each bench (a warm-up iteration or the measured run) as a child of its own and
  * watches it: a bench's top actor stops once its result is in, and its Terminated signal comes only after every actor
  * under it has stopped, which is when `joined` completes.
  */
object Runner:
  final case class Run(bench: Behavior[Nothing], result: Promise[Measured], joined: Promise[Unit])
  private final case class Stopped(result: Promise[Measured], joined: Promise[Unit])

  def apply(): Behavior[Run] = watching.narrow

  private def watching: Behavior[Run | Stopped] = Behaviors.receive { (context, message) =>
    message match
      case Run(bench, result, joined) =>
        context.watchWith(context.spawnAnonymous(bench), Stopped(result, joined))
      case Stopped(result, joined) =>
        // Stopped without a result (an exception in the bench's top actor): the run fails instead of waiting.
        result.tryFailure(IllegalStateException("the bench's actors stopped before it ended"))
        joined.trySuccess(())
    Behaviors.same
  }
