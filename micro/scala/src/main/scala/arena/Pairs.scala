package arena

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.Promise

/** Pairs of a pinger and a ponger: pingpong is one pair for R round trips, throughput is P pairs for D seconds. */
object Pairs:
  final case class Go(startedAt: Long)
  final case class Ping(data: Array[Byte], replyTo: ActorRef[Pong])
  final case class Pong(data: Array[Byte])
  final case class Stop(pongs: Long, at: Long)

  def pingpong(p: Params, payload: Payload, result: Promise[Measured]): Behavior[Collector.Event] =
    play(1, payload, result)((roundTrips, _) => roundTrips == p.rounds) { (elapsed, reports) =>
      Measured(
        elapsed,
        Json.Obj("us_per_round_trip" -> elapsed / 1e3 / p.rounds),
        Json.Obj("round_trips" -> reports.head.counts(1))
      )
    }

  def throughput(p: Params, payload: Payload, result: Promise[Measured]): Behavior[Collector.Event] =
    val seconds = (p.seconds * 1e9).toLong
    play(p.pairs, payload, result)((_, running) => running >= seconds) { (elapsed, reports) =>
      val perPair = reports.map(_.counts.sum)
      Measured(
        elapsed,
        Json.Obj("messages_per_s" -> perPair.sum / (elapsed / 1e9)),
        Json.Obj("messages" -> perPair.sum, "per_pair" -> perPair)
      )
    }

  /** @param finished
    *   whether a pinger stops, given its round trips and the nanoseconds since the clock started
    */
  private def play(pairs: Int, payload: Payload, result: Promise[Measured])(finished: (Long, Long) => Boolean)(
      finish: (Long, Seq[Collector.Done]) => Measured
  ): Behavior[Collector.Event] =
    Collector(actors = 2 * pairs, reports = pairs, result) { context =>
      val pingers = (0 until pairs).map { pair =>
        val answerer = context.spawn(ponger(pair, payload, context.self), s"ponger-$pair")
        context.spawn(pinger(answerer, payload, finished, context.self), s"pinger-$pair")
      }
      startedAt => pingers.foreach(_ ! Go(startedAt))
    }(finish)

  private def pinger(
      ponger: ActorRef[Ping | Stop],
      payload: Payload,
      finished: (Long, Long) => Boolean,
      collector: ActorRef[Collector.Event]
  ): Behavior[Go | Pong] =
    Behaviors.setup { context =>
      collector ! Collector.Ready
      var startedAt = 0L
      var roundTrips = 0L
      Behaviors.receiveMessage {
        case Go(at) =>
          startedAt = at
          ponger ! Ping(payload.make(0), context.self)
          Behaviors.same
        case Pong(data) =>
          if !payload.valid(data, roundTrips) then Behaviors.stopped
          else
            roundTrips += 1
            val now = System.nanoTime()
            if finished(roundTrips, now - startedAt) then ponger ! Stop(roundTrips, now)
            else ponger ! Ping(payload.make(roundTrips), context.self)
            Behaviors.same
      }
    }

  /** Answers every ping; once its pinger stops, reports the pair's counts: the pings it got and the pongs the pinger
    * got.
    */
  private def ponger(pair: Int, payload: Payload, collector: ActorRef[Collector.Event]): Behavior[Ping | Stop] =
    Behaviors.setup { _ =>
      collector ! Collector.Ready
      var pings = 0L
      Behaviors.receiveMessage {
        case Ping(data, replyTo) =>
          if !payload.valid(data, pings) then Behaviors.stopped
          else
            replyTo ! Pong(payload.make(pings))
            pings += 1
            Behaviors.same
        case Stop(pongs, at) =>
          collector ! Collector.Done(pair, Seq(pings, pongs), at)
          Behaviors.same
      }
    }
