package arena

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.Promise

/** Two players each send a ball, then receive one, R times (Intel MPI PingPing). */
object PingPing:
  final case class Start(peer: ActorRef[Ball])
  final case class Ball(data: Array[Byte])

  def apply(p: Params, payload: Payload, result: Promise[Measured]): Behavior[Collector.Event] =
    Collector(actors = 2, reports = 2, result) { context =>
      val a = context.spawn(player(p.rounds, payload, context.self), "a")
      val b = context.spawn(player(p.rounds, payload, context.self), "b")
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

  private def player(rounds: Int, payload: Payload, collector: ActorRef[Collector.Event]): Behavior[Start | Ball] =
    Behaviors.setup { _ =>
      collector ! Collector.Ready
      var peer = Option.empty[ActorRef[Ball]]
      var sent = 0L
      var received = 0L
      // A round's send comes before its receive. The peer's first ball can arrive before our Start; we then owe two.
      def play(): Unit = peer.foreach { to =>
        while sent < rounds && sent <= received do
          to ! Ball(payload.make(sent))
          sent += 1
      }
      Behaviors.receiveMessage {
        case Start(to) =>
          peer = Some(to)
          play()
          Behaviors.same
        case Ball(data) =>
          if !payload.valid(data, received) then Behaviors.stopped
          else
            received += 1
            if received == rounds then collector ! Collector.Done(0, Seq(received), System.nanoTime())
            play()
            Behaviors.same
      }
    }
