import { resolve } from 'node:path';
import type { Command } from 'commander';
import { backupDatabase } from '../db/create-store.js';
import { loadCliConfig, refuseMissingDatabase, type CliContext } from './context.js';
import { print } from './output.js';

export function registerBackupCommand(program: Command, context: CliContext): void {
  program
    .command('backup')
    .description('Write an online backup of the SQLite database (PostgreSQL: prints the pg_dump command instead)')
    .option('--to <file>', 'the backup file (never overwritten); by default <name>-backup-<UTC time>.db beside the database <name>.db')
    .option('--json', 'print JSON')
    .action(async (options: { to?: string; json?: boolean }) => {
      const { databaseUrl } = loadCliConfig(context);
      refuseMissingDatabase(databaseUrl);
      const destination = options.to === undefined ? undefined : resolve(context.cwd, options.to);
      const backup = await backupDatabase(databaseUrl, destination, new Date());
      print(
        context.stdout,
        backup,
        options,
        () => `Backed up ${backup.location} to ${backup.destination} (${backup.bytes} bytes, readable by its owner only).`,
      );
    });
}
