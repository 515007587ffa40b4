package arena.spring;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * Plain-text answers. The content type is set, not negotiated, so a client's Accept
 * header cannot turn an answer into a 406.
 */
final class Responses {

	private static final MediaType TEXT_PLAIN = MediaType.parseMediaType("text/plain;charset=UTF-8");

	private Responses() {
	}

	static ResponseEntity<String> ok() {
		return text(HttpStatusCode.valueOf(200), "OK");
	}

	static ResponseEntity<String> text(HttpStatusCode status, String message) {
		return ResponseEntity.status(status).contentType(TEXT_PLAIN).body(message);
	}

}
