package arena

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.prop.TableDrivenPropertyChecks

/** The steadiness rule of spec/micro.md and the warm-up loop. */
class WarmupSpec extends AnyFunSuite with TableDrivenPropertyChecks {
  private val series = Table(
    ("series", "steady"),
    // fewer than 5 values is never steady
    (Seq(), false),
    (Seq(1.0), false),
    (Seq(1.0, 1.0, 1.0, 1.0), false),
    // five equal values
    (Seq(1.0, 1.0, 1.0, 1.0, 1.0), true),
    // within ±10% of the median (10.0), the bounds included
    (Seq(9.0, 11.0, 10.0, 9.5, 10.5), true),
    (Seq(10.0, 10.0, 10.0, 9.0, 11.0), true),
    // one value just outside, either side
    (Seq(10.0, 10.0, 10.0, 10.0, 11.2), false),
    (Seq(8.9, 10.0, 10.0, 10.0, 10.0), false),
    // the median, not the mean: one outlier far off is still an outlier
    (Seq(10.0, 10.0, 10.0, 10.0, 100.0), false),
    // only the last five count: a slow start does not matter
    (Seq(50.0, 30.0, 20.0, 10.0, 10.2, 9.9, 10.1, 10.0), true),
    // ...but a late spike does
    (Seq(10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 13.0), false),
    // still falling: 20 → 12 is not within 10% of 15
    (Seq(20.0, 18.0, 15.0, 13.0, 12.0), false),
    // the order of the five does not matter, only their spread around the median
    (Seq(2e6, 2.1e6, 1.9e6, 2.05e6, 1.95e6), true),
    // a zero median: only zeros are within 10% of it
    (Seq(0.0, 0.0, 0.0, 0.0, 0.0), true),
    (Seq(0.0, 0.0, 0.0, 0.0, 1e-9), false)
  )

  test("steady: the last 5 values within ±10% of their median") {
    forAll(series)((values: Seq[Double], steady: Boolean) => assert(Warmup.steady(values) == steady, values))
  }

  private def measured(value: Double) = Measured(1, Json.Obj("us_per_round_trip" -> value), Json.Obj())

  private def value(m: Measured): Double = m.metric("us_per_round_trip").asInstanceOf[Double]

  test("--warmup-s 0 runs no iteration") {
    val warmup = Warmup.run(0)(() => fail("no iteration without warm-up"))(_ => 0)
    assert(warmup == Warmup.none && warmup.first.isEmpty)
    assert(Json.render(warmup.json) == """{"iterations": 0, "seconds": 0, "steady": false, "series": []}""")
  }

  test("the warm-up stops once the metric is steady") {
    val values = Iterator(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2, 1.0)
    var made = Vector.empty[Measured]
    val warmup = Warmup.run(60) { () =>
      made :+= measured(values.next())
      made.last
    }(value)
    assert(warmup.series == Seq(40.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.2))
    assert(warmup.steady)
    assert(warmup.first.exists(_ eq made.head))
  }

  test("the warm-up stops when the time is up, once the iteration under way is finished") {
    var calls = 0
    val warmup = Warmup.run(0.05) { () =>
      Thread.sleep(20)
      calls += 1
      measured(math.pow(2, calls)) // never steady: every value doubles the last
    }(value)
    assert(!warmup.steady)
    assert(warmup.series.size == calls)
    assert(warmup.seconds >= 0.05, "stopped before the time was up")
  }
}
