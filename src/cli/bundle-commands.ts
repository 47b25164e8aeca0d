import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseBundleText } from '../core/bundle/bundles.js';
import { CliUsageError, READS_ONLY, withApplication, type CliContext } from './context.js';
import { print, refuseBlankFileName, rows, table, writeOutputFile } from './output.js';

function formatOf(path: string): 'json' | 'yaml' | 'auto' {
  const extension = extname(path).toLowerCase();
  return extension === '.json' ? 'json' : extension === '.yaml' || extension === '.yml' ? 'yaml' : 'auto';
}

export function registerBundleCommands(program: Command, context: CliContext): void {
  program
    .command('import')
    .description(
      'Import a YAML or JSON bundle of personas, context cards, compositions, skills and workflows into an account (all or nothing). Items are matched by key: a changed item gets a new version, an unchanged one is left alone, so importing twice changes nothing',
    )
    .argument('<file>', 'bundle file (.yaml, .yml or .json)')
    .requiredOption('--account <account-id>', 'account id')
    .option('--prune', "delete the account's personas, cards, compositions, skills and workflows that the bundle does not hold")
    .option('--json', 'print JSON')
    .action(async (file: string, options: { account: string; prune?: boolean; json?: boolean }) => {
      let text: string;
      try {
        text = await readFile(resolve(context.cwd, file), 'utf8');
      } catch (err) {
        throw new CliUsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}.`);
      }
      const raw = parseBundleText(text, formatOf(file));
      const summary = await withApplication(context, ({ core }) => core.bundles.importBundle(options.account, raw, { prune: options.prune === true }));
      print(context.stdout, summary, options, () => {
        const { ids, created, updated, unchanged, deleted } = summary;
        const sections = ['personas', 'context_cards', 'compositions', 'skills', 'workflows'] as const;
        const changes = table(
          ['', 'in bundle', 'created', 'updated', 'unchanged', 'deleted'],
          sections.map((section) => [section, summary[section], created[section], updated[section], unchanged[section], deleted[section]]),
        );
        return `Imported into ${summary.account_id}:\n${changes}${Object.keys(ids).length > 0 ? `\n\n${rows(Object.entries(ids))}` : ''}`;
      });
    });

  program
    .command('export')
    .description("Write an account's resources as a bundle (the import format)")
    .requiredOption('--account <account-id>', 'account id')
    .option('--format <format>', 'yaml or json', 'yaml')
    .option('--output <file>', 'write to a file instead of stdout')
    .action(async (options: { account: string; format: string; output?: string }) => {
      if (options.format !== 'yaml' && options.format !== 'json') throw new CliUsageError(`--format must be yaml or json, got "${options.format}".`);
      refuseBlankFileName('--output', options.output, 'the bundle file to write (leave --output out to print the bundle)');
      const format = options.format;
      const text = await withApplication(
        context,
        async ({ core }) => core.bundles.formatBundle(await core.bundles.exportBundle(options.account), format),
        READS_ONLY,
      );
      if (options.output === undefined) context.stdout.write(text);
      else await writeOutputFile(context.cwd, options.output, text, 'the bundle');
    });
}
