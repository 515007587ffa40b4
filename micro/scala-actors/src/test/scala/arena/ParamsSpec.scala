package arena

import org.scalatest.funsuite.AnyFunSuite

import scala.sys.process._

class ParamsSpec extends AnyFunSuite {
  test("defaults follow spec/micro.md") {
    assert(
      Params.parse(List("pingpong")) == Right(Params(Bench.Pingpong, Mode.Idiomatic, 5000, 10000, 1000, 1, 1.0, 10.0))
    )
  }

  test("options are read in any order, the unused ones ignored") {
    val parsed = Params.parse(List("throughput", "--seconds", "0.25", "--mode", "copy", "--pairs", "4", "--procs", "9"))
    assert(parsed == Right(Params(Bench.Throughput, Mode.Copy, pairs = 4, procs = 9, seconds = 0.25)))
  }

  test("--warmup-s takes a number of seconds >= 0, fractions allowed") {
    for ((value, seconds) <- Seq("0" -> 0.0, "2.5" -> 2.5, "10" -> 10.0, "0.05" -> 0.05))
      assert(Params.parse(List("ring", "--warmup-s", value)).right.map(_.warmupSeconds) == Right(seconds), value)
  }

  test("a warm-up iteration of throughput lasts min(D, 0.1 s); the other benches' are the measured run's") {
    assert(Params(Bench.Throughput, seconds = 2.0).forWarmup.seconds == 0.1)
    assert(Params(Bench.Throughput, seconds = 0.05).forWarmup.seconds == 0.05)
    val ring = Params(Bench.Ring, procs = 9, rounds = 3)
    assert(ring.forWarmup == ring)
  }

  private val bad = Seq(
    Nil,
    List("nosuchbench"),
    List("pingpong", "--size", "0"),
    List("pingpong", "--rounds", "-3"),
    List("pingpong", "--size", "abc"),
    List("pingpong", "--size", "3000000000"),
    List("pingpong", "--mode", "weird"),
    List("pingpong", "--bogus", "1"),
    List("pingpong", "--size"),
    List("ring", "--procs", "1"),
    List("throughput", "--seconds", "0"),
    List("throughput", "--seconds", "NaN"),
    List("throughput", "--seconds", "Infinity"),
    List("pingpong", "--warmup-s", "-1"),
    List("pingpong", "--warmup-s", "-0.5"),
    List("pingpong", "--warmup-s", "abc"),
    List("pingpong", "--warmup-s", "NaN"),
    List("pingpong", "--warmup-s", "Infinity"),
    List("pingpong", "--warmup-s")
  )

  test("bad arguments are refused with a message") {
    for (args <- bad) assert(Params.parse(args).left.exists(_.nonEmpty), args)
  }

  test("the program exits 2 on bad arguments, with one line on stderr and nothing on stdout") {
    for (args <- Seq(Seq("pingpong", "--size", "0"), Seq("pingpong", "--warmup-s", "-1"), Seq("ring", "--warmup-s"))) {
      val (status, out, err) = java(args: _*)
      assert(status == 2, args)
      assert(out.isEmpty, args)
      assert(err.linesIterator.size == 1, args)
    }
  }

  test("the program prints one JSON line and exits 0") {
    val (status, out, err) = java("pingpong", "--size", "10", "--rounds", "5", "--mode", "copy", "--warmup-s", "0.5")
    assert(status == 0, err)
    val lines = out.linesIterator.toList
    assert(lines.size == 1, out)
    assert(lines.head.startsWith("""{"bench": "pingpong", "mode": "copy", "payload": "copied""""))
    val warmup = """"warmup": \{"iterations": [1-9]\d*, "seconds": [0-9.E-]+, "steady": (true|false), "series": \[""".r
    assert(warmup.findFirstIn(lines.head).nonEmpty, lines.head)
  }

  /** Runs Main in a fresh JVM on the test class path, with the scheduler flags of arena.toml: status, stdout, stderr.
    */
  private def java(args: String*): (Int, String, String) = {
    val out, err = new StringBuilder()
    val command = Seq(
      s"${sys.props("java.home")}/bin/java",
      "--sun-misc-unsafe-memory-access=allow",
      "-Dactors.enableForkJoin=true",
      "-cp",
      sys.props("java.class.path"),
      "arena.Main"
    ) ++ args
    val status = command ! ProcessLogger(line => out.append(line).append('\n'), line => err.append(line).append('\n'))
    (status, out.toString, err.toString)
  }
}
