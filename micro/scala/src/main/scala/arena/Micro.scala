package arena

import com.typesafe.config.{Config, ConfigFactory}
import org.apache.pekko.Version
import org.apache.pekko.actor.typed.{ActorSystem, Behavior}
import org.slf4j.LoggerFactory

import java.util.concurrent.ForkJoinWorkerThread
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}

/** What a bench measured: the clock (spec/micro.md, "elapsed") and the counts its actors made. */
final case class Measured(elapsedNanos: Long, metric: Json.Obj, check: Json.Obj)

/** One run's output line. */
final case class Report(params: Params, measured: Measured, warmup: Warmup, runtime: String, cpus: Int):
  def payload: String = if params.mode == Mode.Copy then "copied" else "shared"

  def json: String = Json.render(
    Json.Obj(
      "bench" -> params.bench.label,
      "mode" -> params.mode.label,
      "payload" -> payload,
      "params" -> params.used,
      "elapsed_s" -> measured.elapsedNanos / 1e9,
      "metric" -> measured.metric,
      "check" -> measured.check,
      "warmup" -> warmup.json,
      "runtime" -> runtime,
      "cpus" -> cpus
    )
  )

object Micro:
  /** Warms up, then runs the measured bench, all in one actor system, each run with actors of its own; a failed copy
    * check or a stopped system is an exception.
    */
  def run(p: Params): Report =
    // SLF4J initializes on first use: doing it before Pekko's threads log spares stderr its replay warning.
    LoggerFactory.getILoggerFactory
    val system = ActorSystem(Runner(), "micro", config)
    try
      val warm = p.forWarmup
      val warmup = Warmup.run(p.warmupSeconds)(() => once(warm, system))(metric(p.metricName))
      val measured = once(p, system)
      val cpus = Await.result(Future(parallelism())(using system.executionContext), 10.seconds)
      Report(p, withSpawnMemory(measured, warmup), warmup, s"Pekko ${Version.current} on JVM ${Runtime.version}", cpus)
    finally
      system.terminate()
      Await.ready(system.whenTerminated, 30.seconds)

  /** The measured run, but spawn's memory from the first warm-up iteration when there was one: what a fresh runtime
    * pays per actor.
    */
  def withSpawnMemory(measured: Measured, warmup: Warmup): Measured = warmup.first match
    case None        => measured
    case Some(first) =>
      val memory = Set("bytes_per_process", "rss_before_kb", "rss_peak_kb")
      val metric =
        measured.metric.fields.map((name, value) => name -> (if memory(name) then first.metric(name) else value))
      measured.copy(metric = Json.Obj(metric*))

  /** The metric the warm-up follows, as a number. */
  private def metric(name: String)(measured: Measured): Double = measured.metric(name) match
    case value: Double => value
    case value: Long   => value.toDouble
    case value: Int    => value.toDouble
    case other         => throw IllegalStateException(s"metric $name is $other, not a number")

  /** Runs the bench once under the runner and returns once every one of its actors has stopped. */
  private def once(p: Params, system: ActorSystem[Runner.Run]): Measured =
    val result = Promise[Measured]()
    val joined = Promise[Unit]()
    val payload = Payload(p.size, p.mode == Mode.Copy, problem => result.tryFailure(IllegalStateException(problem)))
    val bench: Behavior[Nothing] = p.bench match
      case Bench.Pingping   => PingPing(p, payload, result).narrow[Nothing]
      case Bench.Pingpong   => Pairs.pingpong(p, payload, result).narrow[Nothing]
      case Bench.Throughput => Pairs.throughput(p, payload, result).narrow[Nothing]
      case Bench.Ring       => Ring(p, payload, result).narrow[Nothing]
      case Bench.Spawn      => Spawn(p.procs, result).narrow[Nothing]
    system.whenTerminated.foreach { _ =>
      result.tryFailure(IllegalStateException("the actor system stopped early"))
      joined.tryFailure(IllegalStateException("the actor system stopped early"))
    }(using ExecutionContext.parasitic)
    system ! Runner.Run(bench, result, joined)
    val measured = Await.result(result.future, Duration.Inf)
    Await.result(joined.future, Duration.Inf)
    measured

  /** The core budget: -XX:ActiveProcessorCount=N sets availableProcessors, and the default dispatcher gets exactly that
    * many threads (Pekko's fork-join default would start at least 8).
    */
  private def config: Config =
    val cpus = Runtime.getRuntime.availableProcessors
    ConfigFactory
      .parseString(
        s"pekko.actor.default-dispatcher.fork-join-executor { parallelism-min = $cpus, parallelism-max = $cpus }"
      )
      .withFallback(ConfigFactory.load())

  /** The parallelism of the pool that runs the calling task: called on the default dispatcher, what the actors get. */
  private def parallelism(): Int = Thread.currentThread match
    case worker: ForkJoinWorkerThread => worker.getPool.getParallelism
    case other => throw IllegalStateException(s"the default dispatcher runs on ${other.getName}, not a fork-join pool")
