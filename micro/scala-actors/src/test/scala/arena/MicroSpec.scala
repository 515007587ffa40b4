package arena

import org.scalatest.funsuite.AnyFunSuite

/** Every bench at small sizes in both modes, in this JVM: the counts its actors made are the contract's. */
class MicroSpec extends AnyFunSuite {

  /** Runs a bench without warm-up, unless the arguments ask for one (a later option wins). */
  private def run(args: String*): Report =
    Params.parse(args.head :: "--warmup-s" :: "0" :: args.tail.toList).fold(fail(_), Micro.run)

  for (mode <- Seq("idiomatic", "copy")) {
    val payload = if (mode == "copy") "copied" else "shared"

    test(s"pingping: both players receive every ball ($mode)") {
      for ((size, rounds) <- Seq((100, 500), (20000, 100))) {
        val report = run("pingping", "--mode", mode, "--size", s"$size", "--rounds", s"$rounds")
        assert(report.measured.check("received") == 2L * rounds)
        assert(report.payload == payload)
      }
    }

    test(s"pingpong: the pinger gets every answer ($mode)") {
      for ((size, rounds) <- Seq((1, 1), (100, 500), (20000, 100))) {
        val report = run("pingpong", "--mode", mode, "--size", s"$size", "--rounds", s"$rounds")
        assert(report.measured.check("round_trips") == rounds.toLong)
      }
    }

    test(s"spawn: every actor signals it has started ($mode)") {
      val report = run("spawn", "--mode", mode, "--procs", "2000")
      assert(report.measured.check("alive") == 2000)
      assert(
        Seq("us_per_spawn", "bytes_per_process", "rss_before_kb", "rss_peak_kb").forall(
          report.measured.metric.fields.toMap.contains
        )
      )
    }

    test(s"throughput: every pair counts both directions until the time is up ($mode)") {
      val report = run("throughput", "--mode", mode, "--pairs", "3", "--size", "500", "--seconds", "0.2")
      val perPair = report.measured.check("per_pair") match {
        case counts: Seq[_] => counts.collect { case n: Long => n }
        case other          => fail(s"per_pair is $other")
      }
      // Each pair makes at least one round trip: a ping and a pong.
      assert(perPair.size == 3 && perPair.forall(_ >= 2))
      assert(report.measured.check("messages") == perPair.sum)
      assert(report.measured.elapsedNanos >= 200000000L)
    }

    test(s"ring: the token makes every lap and hop ($mode)") {
      for ((procs, rounds) <- Seq((2, 300), (100, 10))) {
        val report = run("ring", "--mode", mode, "--procs", s"$procs", "--size", "100", "--rounds", s"$rounds")
        assert(report.measured.check("laps") == rounds.toLong)
        assert(report.measured.check("hops") == procs.toLong * rounds)
      }
    }
  }

  test("the output reports the scheduler's real parallelism and the bench's own parameters") {
    val report = run("ring", "--procs", "3", "--rounds", "2", "--pairs", "7")
    // The pom's test JVM sets -Dactors.corePoolSize, as arena.toml's run command does from the budget.
    assert(report.cpus == sys.props("actors.corePoolSize").toInt)
    assert(
      report.json.startsWith(
        """{"bench": "ring", "mode": "idiomatic", "payload": "shared", """ +
          """"params": {"procs": 3, "size": 5000, "rounds": 2}, "elapsed_s": """
      )
    )
  }

  for (bench <- Bench.values) {
    test(s"${bench.label}: warms up first, and reports each iteration's metric") {
      val small = Seq("--mode", "copy", "--size", "16", "--rounds", "50", "--procs", "20", "--seconds", "0.02")
      val report = run((bench.label +: small :+ "--warmup-s" :+ "0.5"): _*)
      val warmup = report.warmup
      assert(warmup.series.nonEmpty && warmup.seconds > 0)
      assert(warmup.steady == Warmup.steady(warmup.series))
      assert(warmup.first.nonEmpty)
      // The same counts in every iteration (throughput's depend on the time)
      if (bench != Bench.Throughput) assert(warmup.first.map(_.check) == Some(report.measured.check))
      val json = report.json
      val series = warmup.series.mkString("[", ", ", "]")
      assert(
        json.contains(
          s""""warmup": {"iterations": ${warmup.series.size}, "seconds": ${warmup.seconds}, """ +
            s""""steady": ${warmup.steady}, "series": $series}, "runtime": """
        ),
        json
      )
    }
  }

  test("--warmup-s 0 runs no warm-up and reports the empty one") {
    val report = run("pingpong", "--rounds", "10", "--warmup-s", "0")
    assert(report.warmup == Warmup.none)
    assert(report.json.contains(""""warmup": {"iterations": 0, "seconds": 0, "steady": false, "series": []}"""))
  }

  test("spawn's memory comes from the first warm-up iteration") {
    def spawned(us: Double, bytes: Long, before: Long, peak: Long) = Measured(
      1,
      Json.Obj("us_per_spawn" -> us, "bytes_per_process" -> bytes, "rss_before_kb" -> before, "rss_peak_kb" -> peak),
      Json.Obj("alive" -> 1000)
    )
    val first = spawned(9.0, 3000, 100, 400)
    val measured = spawned(1.0, 10, 900, 901)
    val warmed = Micro.withSpawnMemory(measured, Warmup(Seq(9.0), 0.1, steady = false, Some(first)))
    assert(warmed == spawned(1.0, 3000, 100, 400))
    assert(Micro.withSpawnMemory(measured, Warmup.none) == measured)
  }

  test("a copy that does not carry its sender's sequence number fails the run") {
    var problem = Option.empty[String]
    val payload = new Payload(10, copy = true, message => problem = Some(message))
    assert(payload.make(257).forall(_ == 1))
    assert(payload.valid(payload.make(300), 300))
    assert(problem.isEmpty)
    assert(!payload.valid(payload.make(3), 4))
    assert(problem.exists(_.contains("copy check failed")))
  }
}
