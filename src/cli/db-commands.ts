import type { Command } from 'commander';
import { copyDatabase, type CopyReport } from '../db/copy-database.js';
import { absoluteDatabaseUrl, locateDatabase, migrateDatabase } from '../db/create-store.js';
import { CliUsageError, loadCliConfig, refuseMissingDatabase, withApplication, type CliContext } from './context.js';
import { print, table } from './output.js';

function describeCopy(report: CopyReport): string {
  const counts = table(
    ['table', 'source rows', 'target rows'],
    report.tables.map((count) => [count.table, count.source, count.target]),
  );
  return [
    `Copied ${report.source.engine} ${report.source.location} into ${report.target.engine} ${report.target.location} in one transaction; every count and the ledger checksum match.`,
    counts,
    `credit_ledger sha256  source ${report.ledgerSha256.source}`,
    `                      target ${report.ledgerSha256.target}`,
  ].join('\n');
}

export function registerDbCommands(program: Command, context: CliContext): void {
  const db = program.command('db').description('The database DATABASE_URL names');

  db.command('init')
    .description('Create the database (or bring an existing one up to date); other commands than serve never create one')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { databaseUrl } = loadCliConfig(context);
      const target = locateDatabase(databaseUrl);
      // An in-memory database is new at every open: created, never one that "existed" (regression).
      const existed = target.exists && target.location !== ':memory:';
      // An existing database may lack migrations (an empty PostgreSQL database has them all to
      // apply): they are applied and named, rather than the database called up to date.
      const applied = existed ? (await migrateDatabase(databaseUrl)).applied : [];
      const location = await withApplication(context, async ({ store }) => store.describe().location, { createsDatabase: true });
      print(context.stdout, { location, created: !existed, applied }, options, () => {
        if (!existed) return `Created the database at ${location}.`;
        if (applied.length === 0) return `The database at ${location} exists and is up to date.`;
        return `The database at ${location} existed; applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}.`;
      });
    });

  db.command('migrate')
    .description('Apply the pending migrations to the database and name them (serve also applies them at start-up, silently)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { databaseUrl } = loadCliConfig(context);
      refuseMissingDatabase(databaseUrl);
      const report = await migrateDatabase(databaseUrl);
      print(context.stdout, report, options, () =>
        report.applied.length === 0
          ? `The ${report.engine} database ${report.location} is up to date: no migration pending.`
          : `Applied ${report.applied.length} migration${report.applied.length === 1 ? '' : 's'} to the ${report.engine} database ${report.location}: ${report.applied.join(', ')}.`,
      );
    });

  db.command('copy')
    .description('Copy every row of the database into an empty other one (either engine), all or nothing, and verify counts and the ledger checksum')
    .requiredOption('--to <url>', 'the target: postgres://user:password@host/database, or a SQLite file path or file: URL')
    .option('--json', 'print JSON')
    .action(async (options: { to: string; json?: boolean }) => {
      const { databaseUrl } = loadCliConfig(context);
      refuseMissingDatabase(databaseUrl);
      let target: string;
      try {
        target = absoluteDatabaseUrl(options.to, context.cwd, '--to');
      } catch (err) {
        // A target naming no engine or no file is the caller's mistake, said about the option they
        // gave (regression: --to '' said "unexpected error: DATABASE_URL names no file.").
        throw new CliUsageError((err as Error).message);
      }
      const report = await copyDatabase(databaseUrl, target);
      // The JSON names its fields in snake_case, as every other command's does (regression: ledgerSha256).
      const { ledgerSha256, ...counts } = report;
      print(context.stdout, { ...counts, ledger_sha256: ledgerSha256 }, options, () => describeCopy(report));
    });
}
