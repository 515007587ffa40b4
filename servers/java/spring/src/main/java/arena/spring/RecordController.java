package arena.spring;

import java.io.InputStream;

import arena.contract.Names;
import arena.contract.RecordRow;
import arena.contract.Records;
import arena.contract.RequestBodies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /record}: records on PostgreSQL. Names and values are checked before the
 * database is asked, so a 400 runs no SQL.
 */
@RestController
@RequestMapping("/record")
class RecordController {

	private static final Logger log = LoggerFactory.getLogger(RecordController.class);

	private final RecordTable table;

	private final RequestBodies bodies;

	RecordController(RecordTable table, RequestBodies bodies) {
		this.table = table;
		this.bodies = bodies;
	}

	@PutMapping
	ResponseEntity<RecordRow> create(InputStream body) {
		return json(HttpStatus.CREATED, Records.created(this.table.create(this.bodies.record(body))));
	}

	@GetMapping
	ResponseEntity<RecordRow> read(@RequestParam(required = false) String name) {
		return json(HttpStatus.OK, Records.found(this.table.read(Names.check(name))));
	}

	@PostMapping
	ResponseEntity<RecordRow> update(InputStream body) {
		return json(HttpStatus.OK, Records.found(this.table.update(this.bodies.record(body))));
	}

	@DeleteMapping
	ResponseEntity<RecordRow> delete(@RequestParam(required = false) String name) {
		return json(HttpStatus.OK, Records.found(this.table.delete(Names.check(name))));
	}

	/**
	 * Answered here rather than through {@link ErrorText}, which shows no server error's
	 * message.
	 */
	@ExceptionHandler
	ResponseEntity<String> databaseFailed(DataAccessException ex) {
		if (ex instanceof DataAccessResourceFailureException || ex instanceof TransientDataAccessException) {
			return Responses.text(HttpStatus.SERVICE_UNAVAILABLE, "database unavailable");
		}
		log.error("/record failed", ex);
		return Responses.text(HttpStatus.INTERNAL_SERVER_ERROR, "database error");
	}

	private static ResponseEntity<RecordRow> json(HttpStatus status, RecordRow row) {
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(row);
	}

}
