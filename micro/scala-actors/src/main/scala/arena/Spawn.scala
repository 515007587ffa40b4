package arena

import scala.actors.Actor
import scala.io.Source

/** N dormant actors (Valkov's spawn benchmark): each tells its parent it has started, then waits for Release. */
object Spawn {
  case object Started
  case object Release
  case object Released

  def apply(run: Run, procs: Int): Unit = run.start(new Parent(run, procs))

  /** The clock runs from the first start to the last Started. Then every sleeper is released, answers Released as its
    * last act and exits; the parent exits after the N-th, and the run joins them all.
    */
  private final class Parent(run: Run, procs: Int) extends Actor {
    def act(): Unit = {
      val rssBefore = rssKb()
      val start = System.nanoTime()
      val sleepers = Array.fill(procs)(run.start(new Sleeper(this)))
      var started = 0
      var released = 0
      var measured = Option.empty[Measured]
      loop {
        react {
          case Started =>
            started += 1
            if (started == procs) {
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
            }
          case Released =>
            released += 1
            if (released == procs) {
              measured.foreach(run.result.trySuccess)
              exit()
            }
        }
      }
    }
  }

  private final class Sleeper(parent: Actor) extends Actor {
    def act(): Unit = {
      parent ! Started
      react { case Release =>
        parent ! Released
        exit()
      }
    }
  }

  private def rssKb(): Long = {
    val status = Source.fromFile("/proc/self/status")
    try
      status
        .getLines()
        .collectFirst { case line if line.startsWith("VmRSS:") => line.split("\\s+")(1).toLong }
        .getOrElse(sys.error("no VmRSS in /proc/self/status"))
    finally status.close()
  }
}
