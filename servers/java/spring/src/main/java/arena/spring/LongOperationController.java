package arena.spring;

import arena.contract.ArenaConfig;
import arena.contract.LongOperation;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

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
	ResponseEntity<LongOperation.Result> longOperation(@RequestParam(required = false) String n) {
		LongOperation.Result result = LongOperation.sort(LongOperation.size(n, this.config.sortN()));
		return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(result);
	}

}
