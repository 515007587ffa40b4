package arena;

import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicLong;

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

	private final byte[] helloPage;

	/** /hello requests so far, over all threads. */
	private final AtomicLong helloCount = new AtomicLong();

	HelloController(ArenaConfig config) throws IOException {
		this.config = config;
		this.helloPage = Files.readAllBytes(config.dataDir().resolve("hello.html"));
	}

	@GetMapping("/")
	ResponseEntity<String> ready() {
		return Responses.ok();
	}

	/** Every K-th request waits; it is counted before the wait, so the others go on. */
	@GetMapping("/hello")
	ResponseEntity<byte[]> hello() throws InterruptedException {
		if (this.helloCount.incrementAndGet() % this.config.helloEvery() == 0) {
			Thread.sleep(this.config.helloDelay());
		}
		return ResponseEntity.ok().contentType(TEXT_HTML).body(this.helloPage);
	}

	@GetMapping("/longPoll")
	ResponseEntity<String> longPoll() throws InterruptedException {
		Thread.sleep(this.config.longPoll());
		return Responses.ok();
	}

}
