package arena

/** The warm-up of spec/micro.md: the bench repeated in-process until its metric is steady or the time is up.
  *
  * @param series
  *   each iteration's metric, in order
  * @param seconds
  *   the time the iterations took
  * @param first
  *   the first iteration's measurement (spawn's memory)
  */
final case class Warmup(series: Seq[Double], seconds: Double, steady: Boolean, first: Option[Measured]) {

  /** The output's `warmup` object; without warm-up `"seconds": 0` as spec/micro.md writes it, not 0.0. */
  def json: Json.Obj = {
    val time: Any = if (series.isEmpty) 0 else seconds
    Json.Obj("iterations" -> series.size, "seconds" -> time, "steady" -> steady, "series" -> series)
  }
}

object Warmup {

  /** How many of the last values the rule looks at. */
  val Window = 5

  /** How far from their median those values may lie, as a fraction of it. */
  val Tolerance = 0.10

  /** No warm-up (`--warmup-s 0`). */
  val none: Warmup = Warmup(Seq.empty, 0.0, steady = false, first = None)

  /** The rule: at least 5 values, and the last 5 all within ±10% of their median. */
  def steady(series: Seq[Double]): Boolean =
    series.size >= Window && {
      val last = series.takeRight(Window)
      val median = last.sorted.apply(Window / 2)
      last.forall(value => math.abs(value - median) <= Tolerance * math.abs(median))
    }

  /** Runs `iteration` until its metric (`metric`) is steady or `budgetSeconds` have passed since the first began (the
    * iteration under way is finished); none at all when the budget is 0.
    */
  def run(budgetSeconds: Double)(iteration: () => Measured)(metric: Measured => Double): Warmup =
    if (budgetSeconds <= 0) none
    else {
      val budget = (budgetSeconds * 1e9).toLong
      val start = System.nanoTime()
      val first = iteration()
      var series = Vector(metric(first))
      var now = System.nanoTime()
      while (!steady(series) && now - start < budget) {
        series :+= metric(iteration())
        now = System.nanoTime()
      }
      Warmup(series, (now - start) / 1e9, steady(series), Some(first))
    }
}
