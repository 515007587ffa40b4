package arena.contract;

/**
 * An answer other than success that the contract prescribes: its HTTP status and a short
 * message for the client. Each server renders it as a {@code text/plain} answer its own
 * way.
 *
 * <p>
 * It carries no stack trace: it is an answer, not a fault, and malformed requests may
 * come by the thousand.
 */
public final class HttpError extends RuntimeException {

	private final int status;

	public HttpError(int status, String message) {
		super(message, null, false, false);
		this.status = status;
	}

	public int status() {
		return this.status;
	}

	static HttpError badRequest(String message) {
		return new HttpError(400, message);
	}

}
