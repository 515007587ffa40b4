package arena.spring;

import arena.contract.ArenaConfig;
import arena.contract.HelloPage;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /}, {@code /hello} and {@code /longPoll}: the endpoints that only answer, or
 * wait and answer.
 *
 * <p>
 * Their waits are {@link Thread#sleep} on the request's virtual thread, which unmounts it
 * from its carrier: a waiting request holds no platform thread that others need.
 */
@RestController
class HelloController {

	private static final MediaType TEXT_HTML = MediaType.parseMediaType("text/html;charset=UTF-8");

	private final ArenaConfig config;

	private final HelloPage hello;

	HelloController(ArenaConfig config, HelloPage hello) {
		this.config = config;
		this.hello = hello;
	}

	@GetMapping("/")
	ResponseEntity<String> ready() {
		return Responses.ok();
	}

	@GetMapping("/hello")
	ResponseEntity<byte[]> hello() throws InterruptedException {
		if (this.hello.waits()) {
			Thread.sleep(this.hello.delay());
		}
		return ResponseEntity.ok().contentType(TEXT_HTML).body(this.hello.bytes());
	}

	@GetMapping("/longPoll")
	ResponseEntity<String> longPoll() throws InterruptedException {
		Thread.sleep(this.config.longPoll());
		return Responses.ok();
	}

}
