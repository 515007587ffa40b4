package arena.jersey;

import arena.contract.Names;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * Answers 400 for a path with a literal {@code ;} ({@link Names#checkPath}), before
 * Jersey matches the path without it, as a matrix parameter.
 */
@PreMatching
public class PathParameters implements ContainerRequestFilter {

	@Override
	public void filter(ContainerRequestContext request) {
		Names.checkPath(request.getUriInfo().getRequestUri().getRawPath());
	}

}
