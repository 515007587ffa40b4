// /record (spec/README.md, "/record: records on PostgreSQL"): the checks, the statements and the
// answers, the same for every TypeScript runtime. Each runtime reaches the database through its
// own driver behind the `Records` interface.
import { isJsonObject, isValidUsername } from './validate.ts';

/** A record as stored and as answered: exactly these two fields. */
export interface DbRecord {
  name: string;
  value: string;
}

export const MAX_RECORD_VALUE_BYTES = 1024;

/**
 * How long a driver may take to open a connection or to hand out a pooled one: short enough that
 * a request answers 503 within the contract's 5 s when the database is gone.
 */
export const DB_CONNECT_TIMEOUT_MS = 2500;

/** One statement for each request, the contract's: `$1` is the name, `$2` the value. */
export const RECORD_SQL = {
  create:
    'INSERT INTO record (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name, value',
  read: 'SELECT name, value FROM record WHERE name = $1',
  update: 'UPDATE record SET value = $2 WHERE name = $1 RETURNING name, value',
  remove: 'DELETE FROM record WHERE name = $1 RETURNING name, value',
} as const;

/** The record table: each call runs one statement and resolves with the row it touched, if any. */
export interface Records {
  /** Inserts the record unless its name exists; undefined when it does. */
  create(record: DbRecord): Promise<DbRecord | undefined>;
  read(name: string): Promise<DbRecord | undefined>;
  update(record: DbRecord): Promise<DbRecord | undefined>;
  remove(name: string): Promise<DbRecord | undefined>;
}

/** Runs one parameterised statement and resolves with its rows, e.g. through pg's Pool.query. */
export type Query = (sql: string, params: string[]) => Promise<DbRecord[]>;

/** `Records` over a driver that takes RECORD_SQL as it is. */
export function sqlRecords(query: Query): Records {
  const first = async (sql: string, params: string[]) => (await query(sql, params))[0];
  return {
    create: ({ name, value }) => first(RECORD_SQL.create, [name, value]),
    read: (name) => first(RECORD_SQL.read, [name]),
    update: ({ name, value }) => first(RECORD_SQL.update, [name, value]),
    remove: (name) => first(RECORD_SQL.remove, [name]),
  };
}

/**
 * The part of node-postgres' `Pool` that /record uses. lib-ts imports no npm package, so node and
 * deno hand their own `pg.Pool` class to `pgPool`.
 */
export interface PgPool {
  query(sql: string, params: string[]): Promise<{ rows: DbRecord[] }>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * A node-postgres pool of at most `max` connections, the process's share of ARENA_DB_POOL. It
 * connects on the first query, so the server starts whether or not the database is up.
 */
export function pgPool<P extends PgPool>(
  Pool: new (
    options: { connectionString: string; max: number; connectionTimeoutMillis: number },
  ) => P,
  url: string,
  max: number,
  runtime: string,
): P {
  // The timeout bounds both opening a connection and waiting for a busy pool's next free one, so
  // a database that is gone gives a 503 in time.
  const pool = new Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
  });
  // An idle connection that breaks (the database restarting) is dropped by the pool and reported
  // here; unlistened, that 'error' event would end the process.
  pool.on(
    'error',
    (err) => console.error(`${runtime}: idle database connection lost: ${err.message}`),
  );
  return pool;
}

/**
 * The record table over a node-postgres pool: one parameterised statement a call, in autocommit
 * (pool.query sends no BEGIN), waiting on the event loop (pg's sockets are non-blocking).
 */
export function pgRecords(pool: PgPool): Records {
  return sqlRecords(async (sql, params) => (await pool.query(sql, params)).rows);
}

const encoder = new TextEncoder();

/**
 * The record of a PUT or POST body with only its two fields, or undefined when the body is not
 * one: a valid name and a string value of at most 1024 UTF-8 bytes without U+0000, which
 * PostgreSQL's text cannot hold.
 */
export function recordOf(body: unknown): DbRecord | undefined {
  if (!isJsonObject(body)) return undefined;
  const { name, value } = body;
  if (typeof name !== 'string' || !isValidUsername(name)) return undefined;
  if (typeof value !== 'string' || value.includes('\0')) return undefined;
  return encoder.encode(value).length <= MAX_RECORD_VALUE_BYTES ? { name, value } : undefined;
}

/** The `name` of a GET or DELETE from all its (percent-decoded) values in the query: exactly one. */
export function recordNameOf(values: readonly string[]): string | undefined {
  return values.length === 1 && isValidUsername(values[0]) ? values[0] : undefined;
}

/** A /record answer: a record as JSON, or an error status with a short message. */
export type RecordAnswer =
  | { status: 200 | 201; record: DbRecord }
  | { status: 400 | 404 | 409 | 503; message: string };

const BAD_BODY = {
  status: 400,
  message:
    'body must be {"name": [A-Za-z0-9_.-]{1,64}, "value": a string of at most 1024 UTF-8 bytes, no NUL}',
} as const;
const BAD_NAME = { status: 400, message: 'query must have one name=[A-Za-z0-9_.-]{1,64}' } as const;
const NOT_FOUND = { status: 404, message: 'no such record' } as const;
const EXISTS = { status: 409, message: 'a record of that name exists' } as const;

/**
 * Runs one statement once the request is known to be valid: `records` undefined (no
 * ARENA_DB_URL) and any driver error answer 503, the server's short message rather than the
 * driver's.
 */
async function run(
  records: Records | undefined,
  statement: (records: Records) => Promise<DbRecord | undefined>,
  found: 200 | 201,
  missing: RecordAnswer,
): Promise<RecordAnswer> {
  if (records === undefined) {
    return { status: 503, message: 'no database: ARENA_DB_URL is not set' };
  }
  let record: DbRecord | undefined;
  try {
    record = await statement(records);
  } catch (err) {
    console.error(`record: database error: ${err instanceof Error ? err.message : err}`);
    return { status: 503, message: 'database unavailable' };
  }
  return record === undefined ? missing : { status: found, record };
}

/** PUT /record: 201 and the new record, 409 when the name exists. */
export async function createRecord(
  records: Records | undefined,
  body: unknown,
): Promise<RecordAnswer> {
  const record = recordOf(body);
  if (record === undefined) return BAD_BODY;
  return run(records, (db) => db.create(record), 201, EXISTS);
}

/** GET /record?name=N: 200 and the record, 404. */
export async function readRecord(
  records: Records | undefined,
  names: readonly string[],
): Promise<RecordAnswer> {
  const name = recordNameOf(names);
  if (name === undefined) return BAD_NAME;
  return run(records, (db) => db.read(name), 200, NOT_FOUND);
}

/** POST /record: 200 and the updated record, 404 (nothing is created). */
export async function updateRecord(
  records: Records | undefined,
  body: unknown,
): Promise<RecordAnswer> {
  const record = recordOf(body);
  if (record === undefined) return BAD_BODY;
  return run(records, (db) => db.update(record), 200, NOT_FOUND);
}

/** DELETE /record?name=N: 200 and the deleted record, 404. */
export async function deleteRecord(
  records: Records | undefined,
  names: readonly string[],
): Promise<RecordAnswer> {
  const name = recordNameOf(names);
  if (name === undefined) return BAD_NAME;
  return run(records, (db) => db.remove(name), 200, NOT_FOUND);
}
