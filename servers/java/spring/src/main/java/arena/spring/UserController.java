package arena.spring;

import java.io.InputStream;

import arena.contract.Names;
import arena.contract.RequestBodies;
import arena.contract.Users;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code /user/*}: JSON objects by username, answered as the bytes that were set. */
@RestController
@RequestMapping("/user")
class UserController {

	private final Users users;

	private final RequestBodies bodies;

	UserController(Users users, RequestBodies bodies) {
		this.users = users;
		this.bodies = bodies;
	}

	@PostMapping("/set/{username}")
	ResponseEntity<String> set(@PathVariable String username, InputStream body) {
		this.users.set(Names.check(username), this.bodies.object(body));
		return Responses.ok();
	}

	@GetMapping("/get/{username}")
	ResponseEntity<byte[]> get(@PathVariable String username) {
		return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(this.users.get(Names.check(username)));
	}

}
