package arena;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code /long-operation}: sorts in the request, on its virtual thread, as the honours
 * report's server did. The sort keeps that thread's carrier busy until it ends: virtual
 * threads are not preempted.
 */
@RestController
class LongOperationController {

	private final ArenaConfig config;

	LongOperationController(ArenaConfig config) {
		this.config = config;
	}

	@GetMapping("/long-operation")
	ResponseEntity<Result> longOperation(@RequestParam(required = false) String n) {
		int size = (n != null) ? parseN(n) : this.config.sortN();
		Result result = new Result("done", size, LongOperation.run(size));
		return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(result);
	}

	private static int parseN(String n) {
		return LongOperation.parseN(n)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"n must be decimal digits in 1.." + ArenaConfig.MAX_SORT_N));
	}

	/**
	 * Jackson prints the checksum in its shortest round-trip form, as the contract asks.
	 */
	record Result(String message, int n, double checksum) {
	}

}
