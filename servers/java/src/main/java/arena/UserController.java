package arena;

import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code /user/*}: JSON objects by username, kept as the bytes the client sent. They
 * already are a JSON value equal to the one set, so re-encoding them would only cost
 * time.
 */
@RestController
@RequestMapping("/user")
class UserController {

	private final Map<String, byte[]> users = new ConcurrentHashMap<>();

	private final RequestBodies bodies;

	UserController(RequestBodies bodies) {
		this.bodies = bodies;
	}

	@PostMapping("/set/{username}")
	ResponseEntity<String> set(@PathVariable String username, InputStream body) {
		String name = Names.check(username);
		this.users.put(name, this.bodies.object(body).bytes());
		return Responses.ok();
	}

	@GetMapping("/get/{username}")
	ResponseEntity<byte[]> get(@PathVariable String username) {
		byte[] user = this.users.get(Names.check(username));
		if (user == null) {
			throw new ResponseStatusException(HttpStatus.NOT_FOUND, "unknown user");
		}
		return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(user);
	}

}
