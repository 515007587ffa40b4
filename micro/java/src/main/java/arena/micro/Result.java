package arena.micro;

import java.util.Map;

/** A benchmark's measurement: the elapsed time, its metric and its check values. */
record Result(long elapsedNanos, Map<String, Object> metric, Map<String, Object> check) {
}
