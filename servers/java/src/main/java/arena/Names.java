package arena;

import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * The contract's names, {@code {username}} and a record's {@code name}: checked after
 * percent-decoding, which Spring MVC does.
 */
final class Names {

	private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

	private Names() {
	}

	static String check(String name) {
		if (!VALID.matcher(name).matches()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "invalid name: want [A-Za-z0-9_.-]{1,64}");
		}
		return name;
	}

}
