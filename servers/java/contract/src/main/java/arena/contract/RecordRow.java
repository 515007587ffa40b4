package arena.contract;

/**
 * A record of /record: a row of the table {@code record}, and the JSON of its answers,
 * {@code {"name": ..., "value": ...}}.
 */
public record RecordRow(String name, String value) {

	/** The column's own check, {@code octet_length(value) <= 1024}. */
	static final int MAX_VALUE_BYTES = 1024;

}
