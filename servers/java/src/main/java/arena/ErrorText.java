package arena;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Renders every error as a short plain-text body, in place of Spring Boot's JSON or HTML
 * error page.
 *
 * <p>
 * Handlers throw {@link org.springframework.web.server.ResponseStatusException}; Spring
 * MVC turns it, and its own 404 and 405, into {@code sendError}, which Tomcat forwards
 * here with the status and message as request attributes. Requests Tomcat's connector
 * rejects before any servlet runs (a bad URI, say) keep Tomcat's own short HTML page.
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
