package arena

import scala.util.Try

sealed abstract class Bench(val label: String)
object Bench {
  case object Pingping extends Bench("pingping")
  case object Pingpong extends Bench("pingpong")
  case object Spawn extends Bench("spawn")
  case object Throughput extends Bench("throughput")
  case object Ring extends Bench("ring")
  val values: Seq[Bench] = Seq(Pingping, Pingpong, Spawn, Throughput, Ring)
}

sealed abstract class Mode(val label: String)
object Mode {
  case object Idiomatic extends Mode("idiomatic")
  case object Copy extends Mode("copy")
  val values: Seq[Mode] = Seq(Idiomatic, Copy)
}

/** The command line of spec/micro.md, with its defaults. */
final case class Params(
    bench: Bench,
    mode: Mode = Mode.Idiomatic,
    size: Int = 5000,
    rounds: Int = 10000,
    procs: Int = 1000,
    pairs: Int = 1,
    seconds: Double = 1.0,
    warmupSeconds: Double = 10.0
) {

  /** The parameters of one warm-up iteration: the same, but throughput lasts at most 0.1 s (spec/micro.md). */
  def forWarmup: Params =
    if (bench == Bench.Throughput) copy(seconds = math.min(seconds, Params.warmupThroughputSeconds)) else this

  /** The name of the bench's metric, the one the warm-up follows. */
  def metricName: String = bench match {
    case Bench.Pingping   => "us_per_message"
    case Bench.Pingpong   => "us_per_round_trip"
    case Bench.Spawn      => "us_per_spawn"
    case Bench.Throughput => "messages_per_s"
    case Bench.Ring       => "us_per_hop"
  }

  /** The parameters this bench uses: the output's `params`. */
  def used: Json.Obj = bench match {
    case Bench.Pingping | Bench.Pingpong => Json.Obj("size" -> size, "rounds" -> rounds)
    case Bench.Spawn                     => Json.Obj("procs" -> procs)
    case Bench.Throughput                => Json.Obj("pairs" -> pairs, "size" -> size, "seconds" -> seconds)
    case Bench.Ring                      => Json.Obj("procs" -> procs, "size" -> size, "rounds" -> rounds)
  }
}

object Params {
  val usage: String = "usage: micro pingping|pingpong|spawn|throughput|ring [--mode idiomatic|copy] [--size S] " +
    "[--rounds R] [--procs N] [--pairs P] [--seconds D] [--warmup-s W]"

  /** The longest warm-up iteration of throughput. */
  val warmupThroughputSeconds = 0.1

  private val integers: Map[String, (Params, Int) => Params] = Map(
    "--size" -> ((p, n) => p.copy(size = n)),
    "--rounds" -> ((p, n) => p.copy(rounds = n)),
    "--procs" -> ((p, n) => p.copy(procs = n)),
    "--pairs" -> ((p, n) => p.copy(pairs = n))
  )
  private val options = integers.keySet + "--mode" + "--seconds" + "--warmup-s"

  // Scala 2.11's Either is not right-biased: `.right` projects it for flatMap.
  def parse(args: List[String]): Either[String, Params] = args match {
    case Nil          => Left(usage)
    case name :: rest =>
      Bench.values.find(_.label == name) match {
        case None        => Left(s"unknown bench '$name'; $usage")
        case Some(bench) =>
          parseOptions(rest, Params(bench)).right.flatMap { p =>
            if (p.bench == Bench.Ring && p.procs < 2) Left("ring needs --procs >= 2") else Right(p)
          }
      }
  }

  private def parseOptions(args: List[String], p: Params): Either[String, Params] = args match {
    case Nil                             => Right(p)
    case option :: _ if !options(option) => Left(s"unknown option '$option'; $usage")
    case option :: Nil                   => Left(s"missing value for $option")
    case "--mode" :: value :: rest       =>
      Mode.values
        .find(_.label == value)
        .toRight(s"--mode must be idiomatic or copy, not '$value'")
        .right
        .flatMap(mode => parseOptions(rest, p.copy(mode = mode)))
    case "--seconds" :: value :: rest =>
      Try(value.toDouble).toOption
        .filter(s => s > 0 && !s.isInfinite)
        .toRight(s"--seconds must be a number > 0, not '$value'")
        .right
        .flatMap(seconds => parseOptions(rest, p.copy(seconds = seconds)))
    case "--warmup-s" :: value :: rest =>
      Try(value.toDouble).toOption
        .filter(s => s >= 0 && !s.isInfinite)
        .toRight(s"--warmup-s must be a number >= 0, not '$value'")
        .right
        .flatMap(seconds => parseOptions(rest, p.copy(warmupSeconds = seconds)))
    case option :: value :: rest =>
      Try(value.toInt).toOption
        .filter(_ >= 1)
        .toRight(s"$option must be an integer >= 1, not '$value'")
        .right
        .flatMap(n => parseOptions(rest, integers(option)(p, n)))
  }
}
