package arena

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.Promise

/** N actors in a ring pass one token for R laps (Varjão's SendRecv). Node 0 starts the token and counts the laps. */
object Ring:
  /** `hops`: how many hops the token has made before this one. */
  final case class Token(hops: Long, data: Array[Byte])
  final case class Start(next: ActorRef[Token])

  def apply(p: Params, payload: Payload, result: Promise[Measured]): Behavior[Collector.Event] =
    Collector(actors = p.procs, reports = 1, result) { context =>
      val first = context.spawnAnonymous(starter(p.rounds, payload, context.self))
      // Built backwards from the node that closes the ring, so that each node is spawned knowing its successor.
      val second = (p.procs - 1 to 1 by -1).foldLeft[ActorRef[Token]](first) { (next, _) =>
        context.spawnAnonymous(node(next, payload, context.self))
      }
      _ => first ! Start(second)
    } { (elapsed, reports) =>
      val counts = reports.head.counts
      Measured(
        elapsed,
        Json.Obj("us_per_hop" -> elapsed / 1e3 / (p.procs.toLong * p.rounds)),
        Json.Obj("laps" -> counts(0), "hops" -> counts(1))
      )
    }

  private def node(next: ActorRef[Token], payload: Payload, collector: ActorRef[Collector.Event]): Behavior[Token] =
    Behaviors.setup { _ =>
      collector ! Collector.Ready
      Behaviors.receiveMessage { case Token(hops, data) =>
        if !payload.valid(data, hops) then Behaviors.stopped
        else
          next ! Token(hops + 1, payload.make(hops + 1))
          Behaviors.same
      }
    }

  private def starter(laps: Int, payload: Payload, collector: ActorRef[Collector.Event]): Behavior[Start | Token] =
    Behaviors.setup { _ =>
      collector ! Collector.Ready
      Behaviors.receiveMessagePartial { case Start(next) =>
        next ! Token(0, payload.make(0))
        lapping(next, laps, payload, collector)
      }
    }

  private def lapping(
      next: ActorRef[Token],
      laps: Int,
      payload: Payload,
      collector: ActorRef[Collector.Event]
  ): Behavior[Start | Token] =
    Behaviors.setup { _ =>
      var seen = 0L
      Behaviors.receiveMessagePartial { case Token(hops, data) =>
        if !payload.valid(data, hops) then Behaviors.stopped
        else
          seen += 1
          if seen == laps then collector ! Collector.Done(0, Seq(seen, hops + 1), System.nanoTime())
          else next ! Token(hops + 1, payload.make(hops + 1))
          Behaviors.same
      }
    }
