/**
 * `porch resource list|show|delete` and `porch label set|remove`: the catalog lifecycle for an
 * operator, on any account, through the same core operations the API's callers use.
 */
import type { Command } from 'commander';
import { EXECUTABLE_RESOURCES, type ExecutableResource } from '../core/access/scopes.js';
import { CliUsageError, parseNumber, withApplication, type CliContext, READS_ONLY } from './context.js';
import { print, rows, table } from './output.js';

function kindOf(value: string): ExecutableResource {
  if ((EXECUTABLE_RESOURCES as readonly string[]).includes(value)) return value as ExecutableResource;
  throw new CliUsageError(`The kind must be one of ${EXECUTABLE_RESOURCES.join(', ')}; got "${value}".`);
}

const labelList = (labels: Record<string, number>) =>
  Object.entries(labels)
    .map(([label, version]) => `${label}=${version}`)
    .join(', ');

export function registerResourceCommands(program: Command, context: CliContext): void {
  const resource = program
    .command('resource')
    .description('List, show and delete workflows, compositions, skills and personas, with their versions and labels');

  resource
    .command('list')
    .description("An account's resources of one kind, newest first, with each one's newest version and labels")
    .argument('<kind>', EXECUTABLE_RESOURCES.join(' | '))
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (kindName: string, options: { account: string; json?: boolean }) => {
      const kind = kindOf(kindName);
      const details = await withApplication(
        context,
        async ({ core }) => {
          // A mistyped id is refused, not shown as an account without resources.
          await core.accounts.showAccount(options.account);
          const lists = {
            workflow: () => core.catalog.listWorkflows(options.account, {}),
            composition: () => core.catalog.listCompositions(options.account, {}),
            skill: () => core.catalog.listSkills(options.account, {}),
            persona: () => core.catalog.listPersonas(options.account, {}),
          } satisfies Record<ExecutableResource, () => Promise<{ items: Array<{ id: string }> }>>;
          const page = await lists[kind]();
          return Promise.all(page.items.map((item) => core.lifecycle.get(kind, options.account, item.id)));
        },
        READS_ONLY,
      );
      print(context.stdout, details, options, () =>
        details.length === 0
          ? `No ${kind}s.`
          : table(
              ['id', 'key', 'name', 'version', 'labels'],
              details.map((detail) => [detail.id, detail.key, detail.name, detail.version, labelList(detail.labels)]),
            ),
      );
    });

  resource
    .command('show')
    .description('One resource: its newest definition, labels and versions')
    .argument('<kind>', EXECUTABLE_RESOURCES.join(' | '))
    .argument('<id>', 'resource id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (kindName: string, id: string, options: { account: string; json?: boolean }) => {
      const kind = kindOf(kindName);
      const shown = await withApplication(
        context,
        async ({ core }) => ({
          ...(await core.lifecycle.get(kind, options.account, id)),
          versions: (await core.lifecycle.listVersions(kind, options.account, id, {})).items,
        }),
        READS_ONLY,
      );
      print(context.stdout, shown, options, () => {
        const { versions, labels, ...definition } = shown;
        return `${rows([
          ['labels', labelList(labels)],
          ['versions', versions.map((version) => `${version.version} (${version.created_at})`).join(', ')],
        ])}\n\n${JSON.stringify(definition, null, 2)}`;
      });
    });

  resource
    .command('delete')
    .description('Delete a resource: it leaves lists and executions; its versions stay until retention removes them')
    .argument('<kind>', EXECUTABLE_RESOURCES.join(' | '))
    .argument('<id>', 'resource id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (kindName: string, id: string, options: { account: string; json?: boolean }) => {
      const kind = kindOf(kindName);
      await withApplication(context, ({ core }) => core.lifecycle.delete(kind, options.account, id));
      print(context.stdout, { kind, id, account_id: options.account, deleted: true }, options, () => `Deleted ${kind} ${id}.`);
    });

  const label = program.command('label').description('Name versions of a resource: set production to a version to run it by default, or roll back');

  label
    .command('set')
    .description('Point a label at a version (moving it if it was set)')
    .argument('<kind>', EXECUTABLE_RESOURCES.join(' | '))
    .argument('<id>', 'resource id')
    .argument('<label>', 'label name, such as production')
    // Up to the largest whole number kept exactly (regression: 99999999999999999999 was read as 10^20, "no version 100000000000000000000").
    .argument('<version>', 'version number', parseNumber('<version>', { whole: true, min: 1 }))
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (kindName: string, id: string, name: string, version: number, options: { account: string; json?: boolean }) => {
      const kind = kindOf(kindName);
      const labels = await withApplication(context, ({ core }) => core.lifecycle.setLabel(kind, options.account, id, name, version));
      print(context.stdout, labels, options, () => `${kind} ${id}: ${labelList(labels.labels)}`);
    });

  label
    .command('remove')
    .description('Remove a label')
    .argument('<kind>', EXECUTABLE_RESOURCES.join(' | '))
    .argument('<id>', 'resource id')
    .argument('<label>', 'label name')
    .requiredOption('--account <account-id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (kindName: string, id: string, name: string, options: { account: string; json?: boolean }) => {
      const kind = kindOf(kindName);
      const labels = await withApplication(context, ({ core }) => core.lifecycle.removeLabel(kind, options.account, id, name));
      print(context.stdout, labels, options, () => `${kind} ${id}: ${labelList(labels.labels)}`);
    });
}
