package arena.contract;

import java.util.regex.Pattern;

/**
 * The contract's names, {@code {username}} and a record's {@code name}: checked after
 * percent-decoding, which each framework does for path and query parameters.
 */
public final class Names {

	private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

	private Names() {
	}

	/**
	 * The name itself when it is valid.
	 * @throws HttpError 400 for any other, and for none ({@code null})
	 */
	public static String check(String name) {
		if (name == null || !VALID.matcher(name).matches()) {
			throw HttpError.badRequest("invalid name: want [A-Za-z0-9_.-]{1,64}");
		}
		return name;
	}

	/**
	 * Refuses a literal {@code ;} in a request's raw path. Tomcat and Jersey cut
	 * {@code ;...} off a segment as a path (matrix) parameter, so {@code /user/get/a;b}
	 * would silently read user {@code a}; no path of the contract has one, and every
	 * server refuses it alike.
	 * @throws HttpError 400 for such a path
	 */
	public static void checkPath(String rawPath) {
		if (rawPath.indexOf(';') >= 0) {
			throw HttpError.badRequest("';' is not allowed in a path");
		}
	}

}
