package arena

import scala.actors.Actor

/** Pairs of a pinger and a ponger: pingpong is one pair for R round trips, throughput is P pairs for D seconds. */
object Pairs {
  final case class Go(startedAt: Long)
  final case class Ping(data: Array[Byte])
  final case class Pong(data: Array[Byte])
  final case class Finish(pongs: Long, at: Long)

  def pingpong(run: Run, p: Params): Unit =
    play(run, 1)((roundTrips, _) => roundTrips == p.rounds) { (elapsed, reports) =>
      Measured(
        elapsed,
        Json.Obj("us_per_round_trip" -> elapsed / 1e3 / p.rounds),
        Json.Obj("round_trips" -> reports.head.counts(1))
      )
    }

  def throughput(run: Run, p: Params): Unit = {
    val seconds = (p.seconds * 1e9).toLong
    play(run, p.pairs)((_, running) => running >= seconds) { (elapsed, reports) =>
      val perPair = reports.map(_.counts.sum)
      Measured(
        elapsed,
        Json.Obj("messages_per_s" -> perPair.sum / (elapsed / 1e9)),
        Json.Obj("messages" -> perPair.sum, "per_pair" -> perPair)
      )
    }
  }

  /** @param finished
    *   whether a pinger stops, given its round trips and the nanoseconds since the clock started
    */
  private def play(run: Run, pairs: Int)(finished: (Long, Long) => Boolean)(
      finish: (Long, Seq[Collector.Done]) => Measured
  ): Unit =
    Collector(run, actors = 2 * pairs, reports = pairs) { collector =>
      val pingers = (0 until pairs).map { pair =>
        val answerer = run.start(new Ponger(run, pair, collector))
        run.start(new Pinger(run, answerer, finished, collector))
      }
      startedAt => pingers.foreach(_ ! Go(startedAt))
    }(finish)

  private final class Pinger(run: Run, ponger: Actor, finished: (Long, Long) => Boolean, collector: Actor)
      extends Actor {
    def act(): Unit = {
      collector ! Collector.Ready
      var startedAt = 0L
      var roundTrips = 0L
      loop {
        react {
          case Go(at) =>
            startedAt = at
            ponger ! Ping(run.payload.make(0))
          case Pong(data) =>
            if (!run.payload.valid(data, roundTrips)) exit()
            roundTrips += 1
            val now = System.nanoTime()
            if (finished(roundTrips, now - startedAt)) ponger ! Finish(roundTrips, now)
            else ponger ! Ping(run.payload.make(roundTrips))
          case Stop => exit()
        }
      }
    }
  }

  /** Answers every ping to its sender; once its pinger stops, reports the pair's counts: the pings it got and the pongs
    * the pinger got.
    */
  private final class Ponger(run: Run, pair: Int, collector: Actor) extends Actor {
    def act(): Unit = {
      collector ! Collector.Ready
      var pings = 0L
      loop {
        react {
          case Ping(data) =>
            if (!run.payload.valid(data, pings)) exit()
            reply(Pong(run.payload.make(pings)))
            pings += 1
          case Finish(pongs, at) => collector ! Collector.Done(pair, Seq(pings, pongs), at)
          case Stop              => exit()
        }
      }
    }
  }
}
