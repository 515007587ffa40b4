package arena.httpserver;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

import arena.contract.HttpError;
import arena.contract.Names;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The handler of one context: the endpoint of each method its path answers.
 *
 * <p>
 * The JDK's server gives a request to the context whose path is the longest prefix of the
 * request's, so the route checks the rest: nothing may follow an exact path (404), and a
 * path that ends in a {@code {username}} needs exactly one more segment (404 for none or
 * several), which is then checked ({@link Names#check}, 400). A method the path does not
 * answer is 405, with the methods it does in {@code Allow}. No method answers
 * {@code HEAD}: the contract names none.
 *
 * <p>
 * Before that, the route refuses what the JDK's parser lets through but the contract does
 * not: a version other than HTTP/1.0 and HTTP/1.1 (505), a {@code Content-Length} that is
 * not digits alone (400: the JDK reads {@code +2} as 2, and the bytes after the body
 * would be read as a request of their own), a header value with a NUL (400), and a
 * literal {@code ;} in the path ({@link Names#checkPath}, 400). The first two close the
 * connection after the answer: its framing cannot be trusted. So does a body that fails
 * to read ({@link Body}).
 */
final class Route implements HttpHandler {

	private static final System.Logger log = System.getLogger(Route.class.getName());

	private static final Pattern DIGITS = Pattern.compile("[0-9]+");

	private final boolean named;

	private final Map<String, Endpoint> methods;

	/** The methods, sorted, as {@code Allow} lists them. */
	private final String allow;

	private Route(boolean named, Map<String, Endpoint> methods) {
		this.named = named;
		this.methods = methods;
		this.allow = String.join(", ", new TreeSet<>(methods.keySet()));
	}

	/** A route for the context's path itself. */
	static Route exact(Map<String, Endpoint> methods) {
		return new Route(false, methods);
	}

	/** A route for the context's path, which ends in {@code /}, and one name after it. */
	static Route named(Map<String, Endpoint> methods) {
		return new Route(true, methods);
	}

	/**
	 * Answers the exchange on its own virtual thread. An exception other than the
	 * contract's {@link HttpError} is answered 500 and logged: the JDK would close the
	 * connection unanswered and log it only at level TRACE.
	 */
	@Override
	public void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			exchange.setStreams(new Body(exchange), null);
			Answer answer;
			try {
				answer = answer(exchange);
			}
			catch (HttpError error) {
				answer = Answer.text(error.status(), error.getMessage());
			}
			catch (InterruptedException ex) {
				// Thread.sleep declares it, though nothing here interrupts an exchange's
				// thread. Should something, the exchange closes unanswered, and with it
				// the connection.
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				log.log(Level.ERROR, exchange.getRequestMethod() + " " + exchange.getRequestURI() + " failed", ex);
				answer = Answer.text(500, "internal error");
			}
			send(exchange, answer);
		}
	}

	private Answer answer(HttpExchange exchange) throws InterruptedException {
		refuseMalformed(exchange);
		URI uri = exchange.getRequestURI();
		Names.checkPath(uri.getRawPath());
		HttpContext context = exchange.getHttpContext();
		// The path is percent-decoded, as the JDK matched it to the context: an encoded
		// slash in a username is a slash.
		String rest = uri.getPath().substring(context.getPath().length());
		if (this.named ? (rest.isEmpty() || rest.indexOf('/') >= 0) : !rest.isEmpty()) {
			throw new HttpError(404, "not found");
		}
		Endpoint endpoint = this.methods.get(exchange.getRequestMethod());
		if (endpoint == null) {
			exchange.getResponseHeaders().set("Allow", this.allow);
			throw new HttpError(405, "method not allowed");
		}
		return endpoint.answer(exchange, this.named ? Names.check(rest) : null);
	}

	private static void refuseMalformed(HttpExchange exchange) {
		String version = exchange.getProtocol();
		if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
			closeAfter(exchange);
			throw new HttpError(505, "HTTP version not supported");
		}
		Headers headers = exchange.getRequestHeaders();
		String length = headers.getFirst("Content-Length");
		if (length != null && !DIGITS.matcher(length).matches()) {
			closeAfter(exchange);
			throw new HttpError(400, "malformed Content-Length");
		}
		for (List<String> values : headers.values()) {
			for (String value : values) {
				if (value.indexOf('\0') >= 0) {
					throw new HttpError(400, "NUL in a header value");
				}
			}
		}
	}

	/** Asks the JDK to close the connection once the exchange's answer is sent. */
	private static void closeAfter(HttpExchange exchange) {
		exchange.getResponseHeaders().set("Connection", "close");
	}

	/**
	 * Writes the answer, with its length, and ends the exchange. Closing the body's
	 * stream sends the answer before the JDK reads and discards what is left of the
	 * request's body; closing the exchange first would do it the other way round. The
	 * answer to a {@code HEAD} (a 405) has no body: the JDK would refuse to write one.
	 */
	private static void send(HttpExchange exchange, Answer answer) throws IOException {
		boolean head = exchange.getRequestMethod().equals("HEAD");
		exchange.getResponseHeaders().set("Content-Type", answer.type());
		exchange.sendResponseHeaders(answer.status(), head ? -1 : answer.body().length);
		if (!head) {
			try (OutputStream body = exchange.getResponseBody()) {
				body.write(answer.body());
			}
		}
	}

	/**
	 * The first value of the query parameter {@code name}, percent-decoded as a form's
	 * ({@code +} is a space), {@code ""} for a name without {@code =}, or {@code null}
	 * when the query has none.
	 */
	static String query(HttpExchange exchange, String name) {
		String query = exchange.getRequestURI().getRawQuery();
		if (query == null) {
			return null;
		}
		for (String parameter : query.split("&")) {
			int equals = parameter.indexOf('=');
			String key = (equals >= 0) ? parameter.substring(0, equals) : parameter;
			if (URLDecoder.decode(key, StandardCharsets.UTF_8).equals(name)) {
				return (equals >= 0) ? URLDecoder.decode(parameter.substring(equals + 1), StandardCharsets.UTF_8) : "";
			}
		}
		return null;
	}

	/**
	 * The request body as the handlers read it. When reading fails — a malformed chunk, a
	 * body cut short — the connection's framing is lost: the JDK would go on reading what
	 * follows, discarding it as the rest of the body and then serving what it takes for
	 * the next request (a chunk size of 17 hex digits is refused after 15, and the last
	 * two then read as a chunk size of their own). The answer closes the connection
	 * instead.
	 */
	private static final class Body extends FilterInputStream {

		private final HttpExchange exchange;

		Body(HttpExchange exchange) {
			super(exchange.getRequestBody());
			this.exchange = exchange;
		}

		@Override
		public int read() throws IOException {
			try {
				return super.read();
			}
			catch (IOException | RuntimeException ex) {
				closeAfter(this.exchange);
				throw ex;
			}
		}

		@Override
		public int read(byte[] bytes, int offset, int length) throws IOException {
			try {
				return super.read(bytes, offset, length);
			}
			catch (IOException | RuntimeException ex) {
				closeAfter(this.exchange);
				throw ex;
			}
		}

	}

	/** What a method of a route answers. */
	@FunctionalInterface
	interface Endpoint {

		/**
		 * @param name the path's {@code {username}}, checked; {@code null} on an exact
		 * route
		 * @throws HttpError for an answer the contract prescribes
		 */
		Answer answer(HttpExchange exchange, String name) throws InterruptedException;

	}

	/** An answer: its status, {@code Content-Type} and body, which is never empty. */
	record Answer(int status, String type, byte[] body) {

		static final Answer OK = text(200, "OK");

		static Answer text(int status, String text) {
			return new Answer(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
		}

	}

}
