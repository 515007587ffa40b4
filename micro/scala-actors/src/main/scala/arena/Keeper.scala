package arena

import scala.actors.Actor
import scala.concurrent.forkjoin.ForkJoinWorkerThread

/** An actor alive for the whole program. scala.actors' scheduler shuts its thread pool down whenever no actor is alive
  * and makes a new one for the next: the keeper holds one pool for the warm-up and the measured run, as a Pekko actor
  * system does. It also reads that pool's parallelism, from one of its threads: what the actors get.
  */
final class Keeper extends Actor {
  def act(): Unit = loop {
    react {
      case Keeper.Parallelism => reply(Thread.currentThread)
      case Stop               => exit()
    }
  }

  def parallelism(): Int = (this !? Keeper.Parallelism) match {
    case worker: ForkJoinWorkerThread => worker.getPool.getParallelism
    case other                        =>
      throw new IllegalStateException(s"actors run on $other, not a fork-join pool (-Dactors.enableForkJoin=true?)")
  }
}

object Keeper {
  case object Parallelism
}
