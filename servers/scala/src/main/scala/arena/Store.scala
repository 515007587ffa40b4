package arena

import org.apache.pekko.Done
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

/** A key-value map owned by one actor. The actor handles one message at a time in mailbox order, so a write
  * acknowledged to one connection is seen by every read sent after it, from any connection or thread.
  */
object Store:
  sealed trait Command[V]
  final case class Put[V](key: String, value: V, replyTo: ActorRef[Done]) extends Command[V]
  final case class Get[V](key: String, replyTo: ActorRef[Option[V]]) extends Command[V]

  def apply[V](entries: Map[String, V] = Map.empty[String, V]): Behavior[Command[V]] =
    Behaviors.receiveMessage {
      case Put(key, value, replyTo) =>
        replyTo ! Done
        apply(entries.updated(key, value))
      case Get(key, replyTo) =>
        replyTo ! entries.get(key)
        Behaviors.same
    }
