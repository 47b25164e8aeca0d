import type { Command } from 'commander';
import { locateDatabase } from '../db/create-store.js';
import { loadCliConfig, withApplication, type CliContext } from './context.js';
import { print } from './output.js';

export function registerDbCommands(program: Command, context: CliContext): void {
  const db = program.command('db').description('The database DATABASE_URL names');

  db.command('init')
    .description('Create the database (or bring an existing one up to date); other commands than serve never create one')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const existed = locateDatabase(loadCliConfig(context).databaseUrl).exists;
      const location = await withApplication(context, async ({ store }) => store.describe().location, { createsDatabase: true });
      print(context.stdout, { location, created: !existed }, options, () =>
        existed ? `The database at ${location} exists and is up to date.` : `Created the database at ${location}.`,
      );
    });
}
