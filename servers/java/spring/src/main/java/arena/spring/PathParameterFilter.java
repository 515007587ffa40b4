package arena.spring;

import java.io.IOException;

import arena.contract.HttpError;
import arena.contract.Names;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers 400 for a path with a literal {@code ;} ({@link Names#checkPath}), before
 * Tomcat and Spring MVC cut it off as a path parameter. A filter runs before Spring MVC's
 * error handling, so it answers through Tomcat's error page, {@link ErrorText}.
 */
@Component
class PathParameterFilter extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		try {
			Names.checkPath(request.getRequestURI());
		}
		catch (HttpError error) {
			response.sendError(error.status(), error.getMessage());
			return;
		}
		chain.doFilter(request, response);
	}

}
