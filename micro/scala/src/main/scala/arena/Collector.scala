package arena

import org.apache.pekko.actor.typed.scaladsl.{ActorContext, Behaviors}
import org.apache.pekko.actor.typed.Behavior

import scala.concurrent.Promise

/** Guardian of the message benches. It spawns the bench's actors, starts the clock once every one of them has signalled
  * Ready from its setup (so creation is not timed), and stops it at the latest `at` of the Done reports.
  */
object Collector:
  sealed trait Event
  case object Ready extends Event

  /** What one actor counted for group `key` (a pair), and the monotonic time of the last message it received. */
  final case class Done(key: Int, counts: Seq[Long], at: Long) extends Event

  /** @param spawn
    *   spawns the actors and returns what starts them, given the clock's start
    * @param finish
    *   turns the elapsed nanoseconds and the reports, ordered by key, into the result
    */
  def apply(actors: Int, reports: Int, result: Promise[Measured])(spawn: ActorContext[Event] => Long => Unit)(
      finish: (Long, Seq[Done]) => Measured
  ): Behavior[Event] =
    Behaviors.setup { context =>
      val start = spawn(context)
      var ready = 0
      var startedAt = 0L
      var done = Vector.empty[Done]
      Behaviors.receiveMessage {
        case Ready =>
          ready += 1
          if ready == actors then
            startedAt = System.nanoTime()
            start(startedAt)
          Behaviors.same
        case report: Done =>
          done :+= report
          if done.size < reports then Behaviors.same
          else
            // The result is in: stopping stops the bench's actors too (Runner waits for them).
            result.trySuccess(finish(done.map(_.at).max - startedAt, done.sortBy(_.key)))
            Behaviors.stopped
      }
    }
