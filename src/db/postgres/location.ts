/**
 * What a PostgreSQL URL names, read without loading the engine (node-postgres and the schema are
 * a good share of start-up): `DATABASE_URL` is checked and described at start-up and by the CLI,
 * whichever engine it names, and a SQLite process never loads the PostgreSQL one.
 */
const POSTGRES_SCHEMES = new Set(['postgres:', 'postgresql:']);

export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

interface PostgresAddress {
  host: string;
  port: string;
  database: string;
}

/** Host, port and database of a PostgreSQL URL, without user or password; throws a message naming the setting when malformed. */
function postgresAddress(databaseUrl: string, setting = 'DATABASE_URL'): PostgresAddress {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error(`${setting} is not a valid PostgreSQL URL: expected postgres://user:password@host:5432/database.`);
  }
  if (!POSTGRES_SCHEMES.has(url.protocol)) throw new Error(`${setting} is not a PostgreSQL URL.`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const host = url.hostname || url.searchParams.get('host') || '';
  if (host === '') throw new Error(`${setting} names no PostgreSQL host: expected postgres://user:password@host:5432/database.`);
  if (database === '') throw new Error(`${setting} names no PostgreSQL database: expected postgres://user:password@host:5432/database.`);
  return { host, port: url.port || '5432', database };
}

/** `host:port/database` of a PostgreSQL URL, safe to log; throws a message naming the setting when malformed. */
export function postgresLocation(databaseUrl: string, setting?: string): string {
  const { host, port, database } = postgresAddress(databaseUrl, setting);
  return `${host}:${port}/${database}`;
}

/**
 * The `pg_dump` command that backs up the database `databaseUrl` names, without its user or
 * password (which `pg_dump` reads from PGUSER, PGPASSWORD or ~/.pgpass), so it is safe to print.
 */
export function pgDumpCommand(databaseUrl: string, file: string): string {
  const { host, port, database } = postgresAddress(databaseUrl);
  return `pg_dump --format=custom --host=${host} --port=${port} --dbname=${database} --file=${file}`;
}
