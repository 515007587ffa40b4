package arena.micro;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Just enough JSON for the result line: objects, lists, strings and numbers. */
final class Json {

	private Json() {
	}

	/** An object whose keys keep the order given. */
	static Map<String, Object> object(Object... keysAndValues) {
		Map<String, Object> object = new LinkedHashMap<>();
		for (int i = 0; i < keysAndValues.length; i += 2) {
			object.put((String) keysAndValues[i], keysAndValues[i + 1]);
		}
		return object;
	}

	static String write(Object value) {
		return switch (value) {
			case Map<?, ?> map -> map.entrySet()
				.stream()
				.map((entry) -> write(entry.getKey()) + ": " + write(entry.getValue()))
				.collect(Collectors.joining(", ", "{", "}"));
			case List<?> list -> list.stream().map(Json::write).collect(Collectors.joining(", ", "[", "]"));
			case String string -> '"' + string.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
			default -> String.valueOf(value);
		};
	}

}
