import type { Command } from 'commander';
import { PorchError } from '../core/errors.js';
import { BUILT_IN_RULES } from '../core/sanitiser/rule-catalog.js';
import { CliUsageError, parseList, READS_ONLY, withApplication, type CliContext } from './context.js';
import { print, table } from './output.js';

/** A repeatable option's values, in the order given. */
function appendValue(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function toggle(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new CliUsageError(`${name} takes on or off, got "${value}".`);
}

/**
 * Which option (or argument) of `rule add` and `rule set` gives each field of a rule. The
 * sanitiser's messages name a rule's fields as the API has them; the CLI's name the option to
 * change (regression: `rule add --regex '(a'` said "pattern: not a valid RE2 regular expression").
 */
const ADD_OPTIONS: Readonly<Record<string, string>> = { rule_id: '--id', label: '--label', severity: '--severity', pattern: '--regex', keywords: '--keywords' };
const SET_OPTIONS: Readonly<Record<string, string>> = { rule_id: '<rule-id>', severity: '--severity' };

/** A field named where a problem starts (`pattern: ...`, `keywords[2]: ...`), problems being `; `-separated. */
const PROBLEM_FIELD = /(^|; )([a-z_]+)(?:\[(\d+)\])?: /g;

/** `run`, its refusals saying the option that gave each field they name (`options`), not the field. */
async function inOptionTerms<Result>(options: Readonly<Record<string, string>>, run: () => Promise<Result>): Promise<Result> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof PorchError) || err.code !== 'VALIDATION_ERROR') throw err;
    let named = false;
    const message = err.message
      .replace(/^Invalid (?:custom rule|rule override): /, '')
      .replace(PROBLEM_FIELD, (problem, start: string, field: string, index: string | undefined) => {
        const option = options[field];
        if (option === undefined) return problem;
        named = true;
        return `${start}${option}${index === undefined ? '' : ` (item ${Number(index) + 1})`}: `;
      });
    throw named ? new CliUsageError(message, { cause: err }) : err;
  }
}

export function registerSanitiserCommands(program: Command, context: CliContext): void {
  const sanitiser = program.command('sanitiser').description("The sanitiser's built-in rules and organisations' own rules");

  sanitiser
    .command('builtins')
    .description('List the built-in rules with their ids and default severities')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => {
      print(context.stdout, BUILT_IN_RULES, options, () =>
        table(
          ['RULE ID', 'LABEL', 'SEVERITY', 'CATEGORY'],
          BUILT_IN_RULES.map((rule) => [rule.rule_id, rule.label, rule.severity, rule.category]),
        ),
      );
    });

  const rule = sanitiser.command('rule').description("Manage an organisation's custom rules and overrides of built-in rules");

  rule
    .command('add')
    .description('Add (or replace) a custom rule: a regex (RE2 syntax, linear time) or a keyword list')
    .requiredOption('--org <organisation-id>', 'organisation id')
    .requiredOption('--id <rule-id>', 'rule id, custom.<slug> (e.g. custom.project-codename)')
    .requiredOption('--label <label>', 'what a finding means, shown to users')
    .option('--severity <severity>', 'info, warn or block', 'warn')
    .option('--regex <pattern>', 'regular expression (no lookaround or backreferences)')
    .option('--ignore-case', 'regex: match case-insensitively')
    .option('--keywords <list>', 'comma-separated keywords, matched as whole words', parseList)
    // A comma in --keywords separates, so a keyword holding one ("Smith, John") needs its own option.
    .option('--keyword <text>', 'one keyword as written, commas kept; repeat for more (with or instead of --keywords)', appendValue)
    .option('--case-sensitive', 'keywords: match case-sensitively')
    .option('--disabled', 'store the rule switched off')
    .option('--json', 'print JSON')
    .action(
      async (options: {
        org: string;
        id: string;
        label: string;
        severity: string;
        regex?: string;
        ignoreCase?: boolean;
        keywords?: string[];
        keyword?: string[];
        caseSensitive?: boolean;
        disabled?: boolean;
        json?: boolean;
      }) => {
        const keywords =
          options.keywords === undefined && options.keyword === undefined ? undefined : [...(options.keywords ?? []), ...(options.keyword ?? [])];
        if ((options.regex === undefined) === (keywords === undefined)) throw new CliUsageError('Give exactly one of --regex or --keywords (or --keyword).');
        if (options.regex !== undefined && options.caseSensitive) {
          throw new CliUsageError('--case-sensitive applies to --keywords; a --regex matches case-sensitively unless --ignore-case is given.');
        }
        if (keywords !== undefined && options.ignoreCase) {
          throw new CliUsageError('--ignore-case applies to --regex; --keywords match case-insensitively unless --case-sensitive is given.');
        }
        const definition =
          options.regex !== undefined
            ? { kind: 'regex', pattern: options.regex, ...(options.ignoreCase ? { flags: 'i' } : {}) }
            : { kind: 'keywords', keywords, case_sensitive: options.caseSensitive ?? false };
        const saved = await withApplication(context, ({ core }) =>
          inOptionTerms(ADD_OPTIONS, () =>
            core.sanitiser.addCustomRule(options.org, {
              rule_id: options.id,
              label: options.label,
              severity: options.severity,
              enabled: !options.disabled,
              ...definition,
            }),
          ),
        );
        print(context.stdout, saved, options, () => `Saved custom rule ${saved.rule_id}.`);
      },
    );

  rule
    .command('set')
    .description(
      "Switch a rule off or on for the organisation, or change its severity: a built-in rule (stored as an override) or one of the organisation's custom rules",
    )
    .argument('<rule-id>', 'built-in rule id (see porch sanitiser builtins) or custom rule id (see porch sanitiser rule list)')
    .requiredOption('--org <organisation-id>', 'organisation id')
    .option('--enabled <on|off>', 'switch the rule on or off')
    .option('--severity <severity>', 'info, warn or block')
    .option('--json', 'print JSON')
    .action(async (ruleId: string, options: { org: string; enabled?: string; severity?: string; json?: boolean }) => {
      const enabled = toggle('--enabled', options.enabled);
      if (enabled === undefined && options.severity === undefined) throw new CliUsageError('Give --enabled and/or --severity.');
      const changes = { ...(enabled === undefined ? {} : { enabled }), ...(options.severity === undefined ? {} : { severity: options.severity }) };
      const saved = await withApplication(context, ({ core }) => inOptionTerms(SET_OPTIONS, () => core.sanitiser.setRule(options.org, ruleId, changes)));
      print(context.stdout, saved, options, () => (saved.kind === 'custom' ? `Saved custom rule ${saved.rule_id}.` : `Saved override of ${saved.rule_id}.`));
    });

  rule
    .command('list')
    .description("List an organisation's custom rules and overrides")
    .requiredOption('--org <organisation-id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (options: { org: string; json?: boolean }) => {
      const rules = await withApplication(context, ({ core }) => core.sanitiser.listRules(options.org), READS_ONLY);
      print(context.stdout, rules, options, () =>
        rules.length === 0
          ? 'No custom rules or overrides.'
          : table(
              ['RULE ID', 'KIND', 'DEFINITION'],
              rules.map((r) => [r.rule_id, r.kind, JSON.stringify(r.definition)]),
            ),
      );
    });

  rule
    .command('remove')
    .description('Remove a custom rule or an override (the built-in default applies again)')
    .argument('<rule-id>', 'rule id')
    .requiredOption('--org <organisation-id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (ruleId: string, options: { org: string; json?: boolean }) => {
      await withApplication(context, ({ core }) => core.sanitiser.removeRule(options.org, ruleId));
      print(context.stdout, { id: ruleId, organisation_id: options.org, removed: true }, options, () => `Removed ${ruleId}.`);
    });
}
