package arena.jersey;

import java.io.InputStream;

import arena.contract.Names;
import arena.contract.RequestBodies;
import arena.contract.Users;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.StreamingOutput;

/** {@code /user/*}: JSON objects by username, answered as the bytes that were set. */
@Singleton
@Path("user")
public class UserResource {

	private final Users users;

	private final RequestBodies bodies;

	@Inject
	public UserResource(Users users, RequestBodies bodies) {
		this.users = users;
		this.bodies = bodies;
	}

	@POST
	@Path("set/{username}")
	@Produces(MediaType.TEXT_PLAIN)
	public String set(@PathParam("username") String username, InputStream body) {
		this.users.set(Names.check(username), this.bodies.object(body));
		return "OK";
	}

	/**
	 * The stored bytes as they are: a {@code byte[]} entity could go to the Jackson
	 * writer, which would print it as a base64 string.
	 */
	@GET
	@Path("get/{username}")
	@Produces(MediaType.APPLICATION_JSON)
	public StreamingOutput get(@PathParam("username") String username) {
		byte[] json = this.users.get(Names.check(username));
		return (output) -> output.write(json);
	}

}
