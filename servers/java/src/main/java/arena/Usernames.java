package arena;

import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * The contract's {@code {username}}: checked after percent-decoding, which Spring MVC
 * does.
 */
final class Usernames {

	private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

	private Usernames() {
	}

	static String check(String username) {
		if (!VALID.matcher(username).matches()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "invalid username");
		}
		return username;
	}

}
