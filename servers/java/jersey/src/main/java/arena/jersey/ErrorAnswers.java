package arena.jersey;

import arena.contract.HttpError;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * Error answers as short plain text: the contract's own, and Jersey's (no resource for
 * the path: 404; none for the method: 405, with its {@code Allow} header; ...), which
 * Tomcat would otherwise render as an HTML page.
 */
final class ErrorAnswers {

	private ErrorAnswers() {
	}

	public static class Contract implements ExceptionMapper<HttpError> {

		@Override
		public Response toResponse(HttpError error) {
			return Response.status(error.status()).type(MediaType.TEXT_PLAIN_TYPE).entity(error.getMessage()).build();
		}

	}

	public static class Jersey implements ExceptionMapper<WebApplicationException> {

		@Override
		public Response toResponse(WebApplicationException ex) {
			Response response = ex.getResponse();
			return Response.fromResponse(response)
				.type(MediaType.TEXT_PLAIN_TYPE)
				.entity(response.getStatusInfo().getReasonPhrase())
				.build();
		}

	}

}
