package arena.jersey;

import java.io.InputStream;

import arena.contract.Names;
import arena.contract.Passwords;
import arena.contract.RequestBodies;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code /password/*}: bcrypt hashes by username, hashed synchronously on the request's
 * Tomcat thread, as the honours report's basic operations ran.
 */
@Singleton
@Path("password")
@Produces(MediaType.TEXT_PLAIN)
public class PasswordResource {

	private final Passwords passwords;

	private final RequestBodies bodies;

	@Inject
	public PasswordResource(Passwords passwords, RequestBodies bodies) {
		this.passwords = passwords;
		this.bodies = bodies;
	}

	@POST
	@Path("set/{username}")
	public String set(@PathParam("username") String username, InputStream body) {
		this.passwords.set(Names.check(username), this.bodies.password(body));
		return "OK";
	}

	@POST
	@Path("verify/{username}")
	public String verify(@PathParam("username") String username, InputStream body) {
		this.passwords.verify(Names.check(username), this.bodies.password(body));
		return "OK";
	}

}
