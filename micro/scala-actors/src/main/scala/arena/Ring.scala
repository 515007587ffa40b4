package arena

import scala.actors.Actor

/** N actors in a ring pass one token for R laps (Varjão's SendRecv). Node 0 starts the token and counts the laps. */
object Ring {

  /** `hops`: how many hops the token has made before this one. */
  final case class Token(hops: Long, data: Array[Byte])
  final case class Start(next: Actor)

  def apply(run: Run, p: Params): Unit =
    Collector(run, actors = p.procs, reports = 1) { collector =>
      val first = run.start(new Starter(run, p.rounds, collector))
      // Built backwards from the node that closes the ring, so that each node is started knowing its successor.
      val second = (p.procs - 1 to 1 by -1).foldLeft[Actor](first) { (next, _) =>
        run.start(new Node(run, next, collector))
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

  private final class Node(run: Run, next: Actor, collector: Actor) extends Actor {
    def act(): Unit = {
      collector ! Collector.Ready
      loop {
        react {
          case Token(hops, data) =>
            if (!run.payload.valid(data, hops)) exit()
            next ! Token(hops + 1, run.payload.make(hops + 1))
          case Stop => exit()
        }
      }
    }
  }

  private final class Starter(run: Run, laps: Int, collector: Actor) extends Actor {
    def act(): Unit = {
      collector ! Collector.Ready
      var next = Option.empty[Actor]
      var seen = 0L
      loop {
        react {
          case Start(to) =>
            next = Some(to)
            to ! Token(0, run.payload.make(0))
          case Token(hops, data) =>
            if (!run.payload.valid(data, hops)) exit()
            seen += 1
            if (seen == laps) collector ! Collector.Done(0, Seq(seen, hops + 1), System.nanoTime())
            else next.foreach(_ ! Token(hops + 1, run.payload.make(hops + 1)))
          case Stop => exit()
        }
      }
    }
  }
}
