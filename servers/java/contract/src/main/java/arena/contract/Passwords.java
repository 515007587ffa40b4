package arena.contract;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Function;

import at.favre.lib.crypto.bcrypt.BCrypt;

/**
 * {@code /password/*}: bcrypt hashes by username, hashed on the calling thread with the
 * ecosystem's bcrypt the server brings.
 */
public final class Passwords {

	private final Map<String, String> hashes = new ConcurrentHashMap<>();

	private final Function<String, String> hash;

	private final BiPredicate<String, String> matches;

	/**
	 * @param hash a password's bcrypt hash at {@code ARENA_BCRYPT_COST}, as a string
	 * ({@code $2a$...})
	 * @param matches whether a password matches a hash
	 */
	public Passwords(Function<String, String> hash, BiPredicate<String, String> matches) {
		this.hash = hash;
		this.matches = matches;
	}

	/** Hashes with at.favre.lib's bcrypt, for the servers without Spring Security. */
	public static Passwords favre(int cost) {
		return new Passwords((password) -> BCrypt.withDefaults().hashToString(cost, password.toCharArray()),
				(password, hash) -> BCrypt.verifyer()
					.verify(password.getBytes(StandardCharsets.UTF_8), hash.getBytes(StandardCharsets.UTF_8)).verified);
	}

	public void set(String username, String password) {
		this.hashes.put(username, this.hash.apply(password));
	}

	/**
	 * @throws HttpError 404 for an unknown user, 403 for a wrong password
	 */
	public void verify(String username, String password) {
		String hash = this.hashes.get(username);
		if (hash == null) {
			// The same bcrypt work as for a known user, so the answer time does not tell
			// which usernames exist.
			this.hash.apply(password);
			throw new HttpError(404, "unknown user");
		}
		if (!this.matches.test(password, hash)) {
			throw new HttpError(403, "wrong password");
		}
	}

}
