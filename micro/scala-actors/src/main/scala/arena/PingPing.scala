package arena

import scala.actors.Actor

/** Two players each send a ball, then receive one, R times (Intel MPI PingPing). */
object PingPing {
  final case class Start(peer: Actor)
  final case class Ball(data: Array[Byte])

  def apply(run: Run, p: Params): Unit =
    Collector(run, actors = 2, reports = 2) { collector =>
      val a = run.start(new Player(run, p.rounds, collector))
      val b = run.start(new Player(run, p.rounds, collector))
      _ =>
        a ! Start(b)
        b ! Start(a)
    } { (elapsed, reports) =>
      Measured(
        elapsed,
        Json.Obj("us_per_message" -> elapsed / 1e3 / p.rounds),
        Json.Obj("received" -> reports.map(_.counts.head).sum)
      )
    }

  private final class Player(run: Run, rounds: Int, collector: Actor) extends Actor {
    def act(): Unit = {
      collector ! Collector.Ready
      var peer = Option.empty[Actor]
      var sent = 0L
      var received = 0L
      // A round's send comes before its receive. The peer's first ball can arrive before our Start; we then owe two.
      def play(): Unit = peer.foreach { to =>
        while (sent < rounds && sent <= received) {
          to ! Ball(run.payload.make(sent))
          sent += 1
        }
      }
      loop {
        react {
          case Start(to) =>
            peer = Some(to)
            play()
          case Ball(data) =>
            if (!run.payload.valid(data, received)) exit()
            received += 1
            if (received == rounds) collector ! Collector.Done(0, Seq(received), System.nanoTime())
            play()
          case Stop => exit()
        }
      }
    }
  }
}
