package arena.spring;

import java.io.InputStream;

import arena.contract.Names;
import arena.contract.Passwords;
import arena.contract.RequestBodies;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /password/*}: bcrypt hashes by username, hashed on the request's virtual thread.
 */
@RestController
@RequestMapping("/password")
class PasswordController {

	private final Passwords passwords;

	private final RequestBodies bodies;

	PasswordController(Passwords passwords, RequestBodies bodies) {
		this.passwords = passwords;
		this.bodies = bodies;
	}

	@PostMapping("/set/{username}")
	ResponseEntity<String> set(@PathVariable String username, InputStream body) {
		this.passwords.set(Names.check(username), this.bodies.password(body));
		return Responses.ok();
	}

	@PostMapping("/verify/{username}")
	ResponseEntity<String> verify(@PathVariable String username, InputStream body) {
		this.passwords.verify(Names.check(username), this.bodies.password(body));
		return Responses.ok();
	}

}
