package arena;

import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code /password/*}: bcrypt hashes by username, hashed on the request's virtual thread.
 */
@RestController
@RequestMapping("/password")
class PasswordController {

	private final Map<String, String> hashes = new ConcurrentHashMap<>();

	private final BCryptPasswordEncoder bcrypt;

	private final RequestBodies bodies;

	PasswordController(BCryptPasswordEncoder bcrypt, RequestBodies bodies) {
		this.bcrypt = bcrypt;
		this.bodies = bodies;
	}

	@PostMapping("/set/{username}")
	ResponseEntity<String> set(@PathVariable String username, InputStream body) {
		String name = Names.check(username);
		this.hashes.put(name, this.bcrypt.encode(this.bodies.password(body)));
		return Responses.ok();
	}

	@PostMapping("/verify/{username}")
	ResponseEntity<String> verify(@PathVariable String username, InputStream body) {
		String name = Names.check(username);
		String password = this.bodies.password(body);
		String hash = this.hashes.get(name);
		if (hash == null) {
			// The same bcrypt work as for a known user, so the answer time does not tell
			// which usernames exist.
			this.bcrypt.encode(password);
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "unknown user");
		}
		if (!this.bcrypt.matches(password, hash)) {
			throw new ResponseStatusException(HttpStatus.FORBIDDEN, "wrong password");
		}
		return Responses.ok();
	}

}
