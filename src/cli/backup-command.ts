import { resolve } from 'node:path';
import type { Command } from 'commander';
import { backupDatabase } from '../db/create-store.js';
import { DatabaseRefusal } from '../db/store.js';
import { loadCliConfig, refuseMissingDatabase, type CliContext } from './context.js';
import { print, refuseBlankFileName } from './output.js';

export function registerBackupCommand(program: Command, context: CliContext): void {
  program
    .command('backup')
    .description('Write an online backup of the SQLite database (PostgreSQL: prints the pg_dump command instead)')
    .option('--to <file>', 'the backup file (never overwritten); by default <name>-backup-<UTC time>.db beside the database <name>.db')
    .option('--json', 'print JSON')
    .action(async (options: { to?: string; json?: boolean }) => {
      const { databaseUrl } = loadCliConfig(context);
      refuseMissingDatabase(databaseUrl);
      refuseBlankFileName('--to', options.to, 'the backup file to write');
      const destination = options.to === undefined ? undefined : resolve(context.cwd, options.to);
      // Ctrl-C or SIGTERM stops the copy between two steps and removes the part written
      // (regression: a signal killed the process and left a .partial file of megabytes behind).
      const stop = new AbortController();
      void context.waitForStop().then((signal) => stop.abort(new DatabaseRefusal(`The backup was stopped (${signal}); no backup was written.`)));
      const backup = await backupDatabase(databaseUrl, destination, new Date(), stop.signal);
      print(
        context.stdout,
        backup,
        options,
        () => `Backed up ${backup.location} to ${backup.destination} (${backup.bytes} bytes, readable by its owner only).`,
      );
    });
}
