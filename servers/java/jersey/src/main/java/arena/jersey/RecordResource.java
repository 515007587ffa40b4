package arena.jersey;

import java.io.InputStream;

import arena.contract.JdbcRecords;
import arena.contract.Names;
import arena.contract.RecordRow;
import arena.contract.RequestBodies;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code /record}: records on PostgreSQL by plain JDBC, synchronously on the request's
 * Tomcat thread, as the honours report's basic operations ran. Names and values are
 * checked before the database is asked, so a 400 runs no SQL.
 */
@Singleton
@Path("record")
@Produces(MediaType.APPLICATION_JSON)
public class RecordResource {

	private final JdbcRecords records;

	private final RequestBodies bodies;

	@Inject
	public RecordResource(JdbcRecords records, RequestBodies bodies) {
		this.records = records;
		this.bodies = bodies;
	}

	@PUT
	public Response create(InputStream body) {
		return Response.status(Response.Status.CREATED).entity(this.records.create(this.bodies.record(body))).build();
	}

	@GET
	public RecordRow read(@QueryParam("name") String name) {
		return this.records.read(Names.check(name));
	}

	@POST
	public RecordRow update(InputStream body) {
		return this.records.update(this.bodies.record(body));
	}

	@DELETE
	public RecordRow delete(@QueryParam("name") String name) {
		return this.records.delete(Names.check(name));
	}

}
