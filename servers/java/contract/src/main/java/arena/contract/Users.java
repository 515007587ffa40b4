package arena.contract;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code /user/*}: JSON objects by username, kept as the bytes the client sent. They
 * already are a JSON value equal to the one set, so re-encoding them would only cost
 * time. Any thread's {@code set} is seen by every thread once it returns.
 */
public final class Users {

	private final Map<String, byte[]> users = new ConcurrentHashMap<>();

	public void set(String username, byte[] json) {
		this.users.put(username, json);
	}

	/**
	 * @throws HttpError 404 for an unknown user
	 */
	public byte[] get(String username) {
		byte[] json = this.users.get(username);
		if (json == null) {
			throw new HttpError(404, "unknown user");
		}
		return json;
	}

}
