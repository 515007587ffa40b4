package arena

import scala.actors.Actor

/** Top actor of the message benches. It starts the bench's actors, starts the clock once every one of them has
  * signalled Ready from its `act` (so creation is not timed), and stops it at the latest `at` of the Done reports.
  *
  * @param spawn
  *   starts the actors and returns what sets them going, given the clock's start
  * @param finish
  *   turns the elapsed nanoseconds and the reports, ordered by key, into the result
  */
final class Collector(run: Run, actors: Int, reports: Int)(spawn: Collector => Long => Unit)(
    finish: (Long, Seq[Collector.Done]) => Measured
) extends Actor {
  def act(): Unit = {
    val start = spawn(this)
    var ready = 0
    var startedAt = 0L
    var done = Vector.empty[Collector.Done]
    loop {
      react {
        case Collector.Ready =>
          ready += 1
          if (ready == actors) {
            startedAt = System.nanoTime()
            start(startedAt)
          }
        case report: Collector.Done =>
          done :+= report
          if (done.size == reports) {
            run.result.trySuccess(finish(done.map(_.at).max - startedAt, done.sortBy(_.key)))
            run.stopAll()
          }
        case Stop => exit()
      }
    }
  }
}

object Collector {
  case object Ready

  /** What one actor counted for group `key` (a pair), and the monotonic time of the last message it received. */
  final case class Done(key: Int, counts: Seq[Long], at: Long)

  /** Starts a bench under a collector of its own. */
  def apply(run: Run, actors: Int, reports: Int)(spawn: Collector => Long => Unit)(
      finish: (Long, Seq[Done]) => Measured
  ): Unit = run.start(new Collector(run, actors, reports)(spawn)(finish))
}
