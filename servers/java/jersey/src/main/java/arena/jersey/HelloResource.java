package arena.jersey;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import arena.contract.ArenaConfig;
import arena.contract.HelloPage;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code /}, {@code /hello} and {@code /longPoll}. A request that must wait is suspended
 * ({@link AsyncResponse}), which gives its Tomcat thread back to the pool, and resumed by
 * the timer when its wait is over: JAX-RS's own way to wait without holding a thread.
 */
@Singleton
@Path("/")
public class HelloResource {

	private static final String TEXT_HTML = "text/html;charset=UTF-8";

	private final ArenaConfig config;

	private final HelloPage hello;

	private final ScheduledExecutorService timer;

	@Inject
	public HelloResource(ArenaConfig config, HelloPage hello, ScheduledExecutorService timer) {
		this.config = config;
		this.hello = hello;
		this.timer = timer;
	}

	@GET
	@Produces(MediaType.TEXT_PLAIN)
	public String ready() {
		return "OK";
	}

	@GET
	@Path("hello")
	@Produces(TEXT_HTML)
	public void hello(@Suspended AsyncResponse response) {
		if (this.hello.waits()) {
			this.timer.schedule(() -> response.resume(this.hello.bytes()), this.hello.delay().toNanos(),
					TimeUnit.NANOSECONDS);
		}
		else {
			response.resume(this.hello.bytes());
		}
	}

	@GET
	@Path("longPoll")
	@Produces(MediaType.TEXT_PLAIN)
	public void longPoll(@Suspended AsyncResponse response) {
		this.timer.schedule(() -> response.resume("OK"), this.config.longPoll().toNanos(), TimeUnit.NANOSECONDS);
	}

}
