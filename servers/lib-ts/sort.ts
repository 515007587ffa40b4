// The /long-operation workload: the same array and checksum in every implementation.

const MULTIPLIER = 6364136223846793005n;
const INCREMENT = 1442695040888963407n;

/** n float64 values in [0, 1) from a 64-bit LCG; BigInt gives the exact wrapping arithmetic. */
export function lcgArray(n: number, seed = 42n): Float64Array {
  const a = new Float64Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = BigInt.asUintN(64, x * MULTIPLIER + INCREMENT);
    a[i] = Number(x >> 11n) * 2 ** -53;
  }
  return a;
}

/** The contract's exact O(n²) bubble sort, descending: the CPU work is the point. */
export function bubbleSortDescending(a: Float64Array): void {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    for (let j = 1; j < n - i; j++) {
      if (a[j - 1] < a[j]) {
        const t = a[j - 1];
        a[j - 1] = a[j];
        a[j] = t;
      }
    }
  }
}

/** Σ (i+1)·a[i], summed in index order so every implementation rounds alike. */
export function checksum(a: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (i + 1) * a[i];
  return sum;
}

export function longOperation(n: number): number {
  const a = lcgArray(n);
  bubbleSortDescending(a);
  return checksum(a);
}
