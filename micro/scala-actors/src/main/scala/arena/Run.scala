package arena

import scala.actors.Actor
import scala.collection.mutable.ArrayBuffer
import scala.concurrent.duration.Duration
import scala.concurrent.{Await, Promise}

/** What a bench measured: the clock (spec/micro.md, "elapsed") and the counts its actors made. */
final case class Measured(elapsedNanos: Long, metric: Json.Obj, check: Json.Obj)

/** Tells an actor of a run that the run is over: it exits. */
case object Stop

/** One run of a bench, a warm-up iteration or the measured one: its result, its payload, and every actor it started, so
  * that the next run begins only once all of them have terminated.
  */
final class Run(p: Params) {
  val result: Promise[Measured] = Promise[Measured]()
  val payload =
    new Payload(p.size, p.mode == Mode.Copy, problem => result.tryFailure(new IllegalStateException(problem)))
  private val started = ArrayBuffer.empty[Actor]

  /** Starts an actor of this run. */
  def start[A <: Actor](actor: A): A = {
    synchronized(started += actor)
    actor.start()
    actor
  }

  /** Tells every actor of the run that it is over. */
  def stopAll(): Unit = synchronized(started.toVector).foreach(_ ! Stop)

  /** The result, once every actor of the run has terminated. scala.actors has no join: after the clock, this polls each
    * actor's state until it is Terminated.
    */
  def await(): Measured = {
    val measured = Await.result(result.future, Duration.Inf)
    for (actor <- synchronized(started.toVector))
      while (actor.getState != Actor.State.Terminated) Thread.sleep(1)
    measured
  }
}
