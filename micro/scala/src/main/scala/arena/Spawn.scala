package arena

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import java.nio.file.{Files, Path}
import scala.concurrent.Promise
import scala.jdk.CollectionConverters.*

/** N dormant actors (Valkov's spawn benchmark): each tells its parent it has started, then waits for Release. */
object Spawn:
  case object Started
  case object Release
  case object Released

  /** The parent: the clock runs from the first spawn to the last Started. Joining is each sleeper's Released, its last
    * act before it stops, and then the parent's own stop, which completes (Runner's watch) only once every sleeper has
    * stopped. A watch per sleeper would join through N Terminated signals instead.
    */
  def apply(procs: Int, result: Promise[Measured]): Behavior[Started.type | Released.type] =
    Behaviors.setup { context =>
      val rssBefore = rssKb()
      val start = System.nanoTime()
      val sleepers = Array.fill(procs)(context.spawnAnonymous(sleeper(context.self)))
      var started = 0
      var released = 0
      var measured = Option.empty[Measured]
      Behaviors.receiveMessage {
        case Started =>
          started += 1
          if started == procs then
            val elapsed = System.nanoTime() - start
            val rssPeak = rssKb()
            val metric = Json.Obj(
              "us_per_spawn" -> elapsed / 1e3 / procs,
              "bytes_per_process" -> (rssPeak - rssBefore) * 1024 / procs,
              "rss_before_kb" -> rssBefore,
              "rss_peak_kb" -> rssPeak
            )
            measured = Some(Measured(elapsed, metric, Json.Obj("alive" -> started)))
            sleepers.foreach(_ ! Release)
          Behaviors.same
        case Released =>
          released += 1
          if released < procs then Behaviors.same
          else
            measured.foreach(result.trySuccess)
            Behaviors.stopped
      }
    }

  private def sleeper(parent: ActorRef[Started.type | Released.type]): Behavior[Release.type] =
    Behaviors.setup { _ =>
      parent ! Started
      Behaviors.receiveMessage { _ =>
        parent ! Released
        Behaviors.stopped
      }
    }

  private def rssKb(): Long =
    Files
      .readAllLines(Path.of("/proc/self/status"))
      .asScala
      .collectFirst { case line if line.startsWith("VmRSS:") => line.split("\\s+")(1).toLong }
      .getOrElse(sys.error("no VmRSS in /proc/self/status"))
