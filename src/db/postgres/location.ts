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
  /** The URL's `sslmode` parameter, if any. */
  sslMode: string | null;
}

/**
 * The URL parsed, with user and password. A libpq socket URL with credentials and no host
 * (`postgres://user:pw@/porch?host=/var/run/postgresql`) is one the WHATWG parser refuses, so it is
 * read without its credentials, which only the driver needs (regression: "not a valid PostgreSQL URL").
 */
function parsePostgresUrl(databaseUrl: string): URL | null {
  if (URL.canParse(databaseUrl)) return new URL(databaseUrl);
  const withoutCredentials = databaseUrl.replace(/^(postgres(?:ql)?:\/\/)[^@/?#]*@(?=[/?#]|$)/i, '$1');
  return URL.canParse(withoutCredentials) ? new URL(withoutCredentials) : null;
}

/** Host, port and database of a PostgreSQL URL, without user or password; throws a message naming the setting when malformed. */
function postgresAddress(databaseUrl: string, setting = 'DATABASE_URL'): PostgresAddress {
  const url = parsePostgresUrl(databaseUrl);
  if (url === null) throw new Error(`${setting} is not a valid PostgreSQL URL: expected postgres://user:password@host:5432/database.`);
  if (!POSTGRES_SCHEMES.has(url.protocol)) throw new Error(`${setting} is not a PostgreSQL URL.`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const host = url.hostname || url.searchParams.get('host') || '';
  if (host === '') throw new Error(`${setting} names no PostgreSQL host: expected postgres://user:password@host:5432/database.`);
  if (database === '') throw new Error(`${setting} names no PostgreSQL database: expected postgres://user:password@host:5432/database.`);
  return { host, port: url.port || '5432', database, sslMode: url.searchParams.get('sslmode') };
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
  const { host, port, database, sslMode } = postgresAddress(databaseUrl);
  // The URL's sslmode carries over (regression: dropped, so pg_dump connected without the TLS the URL asks for).
  const environment = sslMode === null ? '' : `PGSSLMODE=${shellQuoted(sslMode)} `;
  return `${environment}pg_dump --format=custom --host=${shellQuoted(host)} --port=${shellQuoted(port)} --dbname=${shellQuoted(database)} --file=${shellQuoted(file)}`;
}

/** `value` as one word of a POSIX shell command line: as it is when that is safe, else in single quotes (regression: a database name with a space). */
function shellQuoted(value: string): string {
  return /^[A-Za-z0-9_./:@%+,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
