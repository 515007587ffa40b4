import { SQL } from 'bun';
import { DB_CONNECT_TIMEOUT_MS, type DbRecord, type Records } from '../../lib-ts/record.ts';

/**
 * Bun's built-in PostgreSQL client with its pool of at most `max` connections, the whole
 * ARENA_DB_POOL of this one-process server. It connects on the first query, so the server starts
 * whether or not the database is up, and replaces connections that broke when queries need them.
 */
export function createSql(url: string, max: number): SQL {
  return new SQL(url, { max, connectionTimeout: DB_CONNECT_TIMEOUT_MS / 1000 });
}

/**
 * The record table over `sql`: each call one parameterised statement (a named prepared statement
 * per connection, parsed once and then only executed), in autocommit. Bun's native client does
 * the I/O, so a query waits on the event loop.
 */
export function bunRecords(sql: SQL): Records {
  const first = async (rows: Promise<DbRecord[]>) => (await rows)[0];
  return {
    create: ({ name, value }) =>
      first(sql`INSERT INTO record (name, value) VALUES (${name}, ${value})
                ON CONFLICT (name) DO NOTHING RETURNING name, value`),
    read: (name) => first(sql`SELECT name, value FROM record WHERE name = ${name}`),
    update: ({ name, value }) =>
      first(sql`UPDATE record SET value = ${value} WHERE name = ${name} RETURNING name, value`),
    remove: (name) => first(sql`DELETE FROM record WHERE name = ${name} RETURNING name, value`),
  };
}
