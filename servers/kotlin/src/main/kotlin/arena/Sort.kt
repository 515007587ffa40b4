package arena

const val MAX_SORT_N = 200_000

/** The contract's array: `n` doubles in [0, 1) from a 64-bit LCG seeded with 42. */
fun lcgArray(n: Int): DoubleArray {
    var x = 42L
    return DoubleArray(n) {
        // Long arithmetic wraps mod 2^64, as the contract's uint64 does.
        x = x * 6364136223846793005L + 1442695040888963407L
        (x ushr 11).toDouble() / (1L shl 53)
    }
}

/** The contract's exact bubble sort, descending: O(n²) work on purpose, no library sort. */
fun bubbleSortDescending(a: DoubleArray) {
    for (i in a.indices) {
        for (j in 1 until a.size - i) {
            if (a[j - 1] < a[j]) {
                val swap = a[j - 1]
                a[j - 1] = a[j]
                a[j] = swap
            }
        }
    }
}

/** Σ (i+1)·a[i] in index order. */
fun checksum(a: DoubleArray): Double {
    var sum = 0.0
    for (i in a.indices) sum += (i + 1) * a[i]
    return sum
}

fun sortChecksum(n: Int): Double = lcgArray(n).also(::bubbleSortDescending).let(::checksum)
