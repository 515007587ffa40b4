package arena;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;

/**
 * Reads request bodies: at most {@value #MAX_BYTES} bytes of UTF-8 JSON.
 *
 * <p>
 * The body is read here rather than by a message converter, which would read any length
 * into memory before a limit could be checked.
 */
@Component
class RequestBodies {

	static final int MAX_BYTES = 64 * 1024;

	/** bcrypt's own limit; longer input would be truncated or refused by the encoder. */
	static final int MAX_PASSWORD_BYTES = 72;

	private final ObjectReader reader;

	RequestBodies(JsonMapper mapper) {
		this.reader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
	}

	/** A body that is a JSON object, as the client sent it. */
	JsonObject object(InputStream body) {
		byte[] bytes = readBounded(body);
		return new JsonObject(bytes, parseObject(bytes));
	}

	/** The {@code password} string of a {@code {"password": s}} body. */
	String password(InputStream body) {
		JsonNode password = object(body).tree().get("password");
		if (password == null || !password.isString()
				|| password.stringValue().getBytes(StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES) {
			throw badRequest("body must be {\"password\": a string of at most 72 UTF-8 bytes}");
		}
		return password.stringValue();
	}

	/**
	 * The record of a {@code {"name": n, "value": v}} body; other fields are ignored.
	 */
	RecordRow record(InputStream body) {
		ObjectNode tree = object(body).tree();
		JsonNode name = tree.get("name");
		JsonNode value = tree.get("value");
		Names.check((name != null && name.isString()) ? name.stringValue() : "");
		// PostgreSQL's text cannot hold U+0000.
		if (value == null || !value.isString()
				|| value.stringValue().getBytes(StandardCharsets.UTF_8).length > RecordRow.MAX_VALUE_BYTES
				|| value.stringValue().indexOf('\0') >= 0) {
			throw badRequest("value must be a string of at most 1024 UTF-8 bytes, without U+0000");
		}
		return new RecordRow(name.stringValue(), value.stringValue());
	}

	private static byte[] readBounded(InputStream body) {
		byte[] bytes;
		try {
			bytes = body.readNBytes(MAX_BYTES + 1);
		}
		catch (IOException ex) {
			throw badRequest("cannot read the body");
		}
		if (bytes.length > MAX_BYTES) {
			throw new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE, "body larger than 65536 bytes");
		}
		return bytes;
	}

	private ObjectNode parseObject(byte[] bytes) {
		JsonNode tree;
		try {
			// Strict UTF-8 first: given bytes, Jackson also accepts UTF-16 and UTF-32.
			String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
			tree = this.reader.readTree(text);
		}
		catch (CharacterCodingException | JacksonException ex) {
			throw badRequest("body is not valid JSON");
		}
		if (!(tree instanceof ObjectNode object)) {
			throw badRequest("body must be a JSON object");
		}
		return object;
	}

	private static ResponseStatusException badRequest(String message) {
		return new ResponseStatusException(HttpStatus.BAD_REQUEST, message);
	}

	/** A JSON object body: its raw bytes and its parsed tree. */
	record JsonObject(byte[] bytes, ObjectNode tree) {
	}

}
