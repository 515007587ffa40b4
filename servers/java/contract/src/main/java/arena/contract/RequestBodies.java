package arena.contract;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Reads request bodies: at most {@value #MAX_BYTES} bytes of UTF-8 JSON.
 *
 * <p>
 * Each server reads the body here from its raw stream rather than through its framework's
 * JSON binding, which would read any length into memory before a limit could be checked,
 * and would accept UTF-16 or UTF-32 too. The JSON itself is parsed by the server's own
 * Jackson (Jackson 3 for Spring Boot and the JDK's server, Jersey's Jackson 2), given as
 * a {@link JsonReader}.
 */
public final class RequestBodies {

	public static final int MAX_BYTES = 64 * 1024;

	/** bcrypt's own limit; longer input would be truncated or refused by the hasher. */
	static final int MAX_PASSWORD_BYTES = 72;

	private final JsonReader json;

	public RequestBodies(JsonReader json) {
		this.json = json;
	}

	/** A body that is a JSON object, as the bytes the client sent. */
	public byte[] object(InputStream body) {
		byte[] bytes = readBounded(body);
		parseObject(bytes);
		return bytes;
	}

	/** The {@code password} string of a {@code {"password": s}} body. */
	public String password(InputStream body) {
		if (!(parseObject(readBounded(body)).get("password") instanceof String password)
				|| password.getBytes(StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES) {
			throw HttpError.badRequest("body must be {\"password\": a string of at most 72 UTF-8 bytes}");
		}
		return password;
	}

	/**
	 * The record of a {@code {"name": n, "value": v}} body; other fields are ignored.
	 */
	public RecordRow record(InputStream body) {
		Map<?, ?> object = parseObject(readBounded(body));
		String name = Names.check((object.get("name") instanceof String text) ? text : null);
		// PostgreSQL's text cannot hold U+0000.
		if (!(object.get("value") instanceof String value)
				|| value.getBytes(StandardCharsets.UTF_8).length > RecordRow.MAX_VALUE_BYTES
				|| value.indexOf('\0') >= 0) {
			throw HttpError.badRequest("value must be a string of at most 1024 UTF-8 bytes, without U+0000");
		}
		return new RecordRow(name, value);
	}

	private static byte[] readBounded(InputStream body) {
		byte[] bytes;
		try {
			bytes = body.readNBytes(MAX_BYTES + 1);
		}
		// A body that ends before its announced length, or a malformed chunk, is the
		// client's error. Tomcat and the JDK's server report it as an IOException, but
		// the JDK's chunked stream reads a chunk size over 2^31 - 1 as negative and then
		// throws an IndexOutOfBoundsException, which would otherwise be answered 500.
		catch (IOException | RuntimeException ex) {
			throw HttpError.badRequest("cannot read the body");
		}
		if (bytes.length > MAX_BYTES) {
			throw new HttpError(413, "body larger than 65536 bytes");
		}
		return bytes;
	}

	private Map<?, ?> parseObject(byte[] bytes) {
		Object value;
		try {
			value = this.json.read(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString());
		}
		catch (CharacterCodingException ex) {
			throw HttpError.badRequest("body is not UTF-8");
		}
		// Whatever the JSON library throws: Jackson 2's exceptions are checked,
		// Jackson 3's are not.
		catch (Exception ex) {
			throw HttpError.badRequest("body is not valid JSON");
		}
		if (!(value instanceof Map<?, ?> object)) {
			throw HttpError.badRequest("body must be a JSON object");
		}
		return object;
	}

	/**
	 * Parses one JSON text into plain Java values: a {@code Map} for an object, a
	 * {@code List}, {@code String}, {@code Number}, {@code Boolean} or {@code null}.
	 * Content after the value is an error, as is anything that is not JSON.
	 */
	@FunctionalInterface
	public interface JsonReader {

		Object read(String json) throws Exception;

	}

}
