package arena;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers 400 for a path with a literal {@code ;}. Tomcat and Spring MVC cut {@code ;...}
 * off each segment as a path parameter, so {@code /user/get/a;b} would silently read user
 * {@code a}; no path of the contract has one.
 */
@Component
class PathParameterFilter extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getRequestURI().indexOf(';') >= 0) {
			response.sendError(HttpServletResponse.SC_BAD_REQUEST, "';' is not allowed in a path");
			return;
		}
		chain.doFilter(request, response);
	}

}
