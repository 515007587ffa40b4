package arena.spring;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Renders every error as a short plain-text body, in place of Spring Boot's JSON or HTML
 * error page.
 *
 * <p>
 * Spring MVC turns its own errors (404, 405, a missing parameter, ...) into
 * {@code sendError}, which Tomcat forwards here with the status and message as request
 * attributes; the contract's own errors are answered by {@link HttpErrors}. Requests
 * Tomcat's connector rejects before any servlet runs (a bad URI, say) keep Tomcat's own
 * short HTML page.
 */
@RestController
class ErrorText implements ErrorController {

	@RequestMapping("/error")
	ResponseEntity<String> error(HttpServletRequest request) {
		// A direct request for /error carries no status: the contract has no such path.
		HttpStatus status = (request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code)
				? HttpStatus.resolve(code) : HttpStatus.NOT_FOUND;
		if (status == null) {
			status = HttpStatus.INTERNAL_SERVER_ERROR;
		}
		String message = (request.getAttribute(RequestDispatcher.ERROR_MESSAGE) instanceof String text) ? text : "";
		// A server error's message may be an exception's text, which is not for clients.
		if (message.isBlank() || status.is5xxServerError()) {
			message = status.getReasonPhrase();
		}
		return Responses.text(status, message);
	}

}
