package arena

import scala.util.{Failure, Success, Try}

object Main {
  def main(args: Array[String]): Unit =
    Params.parse(args.toList) match {
      case Left(problem) =>
        System.err.println(problem)
        sys.exit(2)
      case Right(params) =>
        Try(Micro.run(params)) match {
          case Success(report) => println(report.json)
          case Failure(error)  =>
            System.err.println(s"${params.bench.label} failed: $error")
            sys.exit(1)
        }
    }
}
