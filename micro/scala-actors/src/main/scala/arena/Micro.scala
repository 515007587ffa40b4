package arena

/** One run's output line. */
final case class Report(params: Params, measured: Measured, warmup: Warmup, runtime: String, cpus: Int) {
  def payload: String = if (params.mode == Mode.Copy) "copied" else "shared"

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
}

object Micro {

  /** Warms up, then runs the measured bench, all on one scheduler (the keeper's), each run with actors of its own; a
    * failed copy check is an exception.
    */
  def run(p: Params): Report = {
    val keeper = new Keeper
    keeper.start()
    try {
      val warmup = Warmup.run(p.warmupSeconds)(() => once(p.forWarmup))(metric(p.metricName))
      val measured = once(p)
      val runtime = s"scala.actors ${util.Properties.versionNumberString} on JVM ${sys.props("java.runtime.version")}"
      Report(p, withSpawnMemory(measured, warmup), warmup, runtime, keeper.parallelism())
    } finally keeper ! Stop
  }

  /** The measured run, but spawn's memory from the first warm-up iteration when there was one: what a fresh runtime
    * pays per actor.
    */
  def withSpawnMemory(measured: Measured, warmup: Warmup): Measured = warmup.first match {
    case None        => measured
    case Some(first) =>
      val memory = Set("bytes_per_process", "rss_before_kb", "rss_peak_kb")
      val metric = measured.metric.fields.map { case (name, value) =>
        name -> (if (memory(name)) first.metric(name) else value)
      }
      measured.copy(metric = Json.Obj(metric: _*))
  }

  /** The metric the warm-up follows, as a number. */
  private def metric(name: String)(measured: Measured): Double = measured.metric(name) match {
    case value: Double => value
    case value: Long   => value.toDouble
    case value: Int    => value.toDouble
    case other         => throw new IllegalStateException(s"metric $name is $other, not a number")
  }

  /** Runs the bench once and returns once every one of its actors has terminated. */
  private def once(p: Params): Measured = {
    val run = new Run(p)
    p.bench match {
      case Bench.Pingping   => PingPing(run, p)
      case Bench.Pingpong   => Pairs.pingpong(run, p)
      case Bench.Throughput => Pairs.throughput(run, p)
      case Bench.Ring       => Ring(run, p)
      case Bench.Spawn      => Spawn(run, p.procs)
    }
    run.await()
  }
}
