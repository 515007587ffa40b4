package arena.contract;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Tests that need the PostgreSQL of {@code ARENA_DB_URL}, prepared with
 * spec/data/record.sql, and are skipped without it. Inherited, unlike JUnit's own
 * condition, so that each module's subclass of a shared test is skipped too.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@EnabledIfEnvironmentVariable(named = "ARENA_DB_URL", matches = ".+",
		disabledReason = "needs ARENA_DB_URL: a PostgreSQL with spec/data/record.sql")
public @interface NeedsDatabase {

}
