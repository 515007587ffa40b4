package arena

/** /long-operation: the contract's LCG array, its exact descending bubble sort and the checksum. */
object LongOperation:
  private val TwoToMinus53 = 1.0 / (1L << 53)

  /** `?n=`: decimal digits only (leading zeros allowed), 1..MaxSortN. */
  def parseN(text: String): Option[Int] =
    val digitsOnly = text.nonEmpty && text.forall(c => c >= '0' && c <= '9')
    // BigInt, so that a long run of digits cannot overflow back into range.
    Option.when(digitsOnly)(BigInt(text)).filter(n => n >= 1 && n <= Settings.MaxSortN).map(_.toInt)

  /** Σ (i+1)·a[i] over the sorted array, summed in index order. */
  def checksum(n: Int): Double =
    val a = sortedDescending(array(n))
    var sum = 0.0
    var i = 0
    while i < n do
      sum += (i + 1) * a(i)
      i += 1
    sum

  /** x ← x·6364136223846793005 + 1442695040888963407, a[i] = (x >>> 11)·2⁻⁵³. Long arithmetic wraps mod 2⁶⁴ like the
    * contract's uint64, and `>>>` reads the top 53 bits unsigned.
    */
  def array(n: Int): Array[Double] =
    var x = 42L
    Array.tabulate(n) { _ =>
      x = x * 6364136223846793005L + 1442695040888963407L
      (x >>> 11).toDouble * TwoToMinus53
    }

  /** The contract's exact bubble sort, in place. While loops rather than ranges: this is the hot loop the benchmark
    * measures, and a closure per iteration would measure the JIT's inlining instead.
    */
  def sortedDescending(a: Array[Double]): Array[Double] =
    val n = a.length
    var i = 0
    while i < n do
      var j = 1
      while j < n - i do
        if a(j - 1) < a(j) then
          val t = a(j - 1)
          a(j - 1) = a(j)
          a(j) = t
        j += 1
      i += 1
    a
