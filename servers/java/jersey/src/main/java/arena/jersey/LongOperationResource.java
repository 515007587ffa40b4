package arena.jersey;

import arena.contract.ArenaConfig;
import arena.contract.LongOperation;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code /long-operation}, as the honours report's Jersey server ran it: the request is
 * suspended, and a new platform thread sorts and resumes it. The Tomcat thread goes back
 * to the pool at once, and the operating system time-slices the sorting threads, however
 * many there are.
 */
@Singleton
@Path("long-operation")
public class LongOperationResource {

	private final ArenaConfig config;

	@Inject
	public LongOperationResource(ArenaConfig config) {
		this.config = config;
	}

	@GET
	@Produces(MediaType.APPLICATION_JSON)
	public void sort(@QueryParam("n") String n, @Suspended AsyncResponse response) {
		int size = LongOperation.size(n, this.config.sortN());
		new Thread(() -> response.resume(LongOperation.sort(size)), "long-operation").start();
	}

}
