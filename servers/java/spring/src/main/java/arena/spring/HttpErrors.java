package arena.spring;

import arena.contract.HttpError;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The contract's error answers ({@link HttpError}: a bad name or body, an unknown user, a
 * wrong password, ...) as short plain text, straight from the handler that refused the
 * request.
 */
@RestControllerAdvice
class HttpErrors {

	@ExceptionHandler
	ResponseEntity<String> refused(HttpError error) {
		return Responses.text(HttpStatusCode.valueOf(error.status()), error.getMessage());
	}

}
