/**
 * `porch skills import|export`: the bridge between Agent Skills (SKILL.md folders used by agent
 * tools) and Porch custom skills. The API's GET /skills/{id}/skill.md does the export for key
 * holders; these commands serve the operator.
 */
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { importAgentSkill, porchSkillToAgentSkill, renderSkillMd, type ImportedAgentSkill } from '../core/skills-bridge/index.js';
import { CliUsageError, READS_ONLY, withApplication, type CliContext } from './context.js';
import { print, refuseBlankFileName, rows, writeOutputFile } from './output.js';
import { visible } from './visible-text.js';

interface SkillSource {
  text: string;
  /** Set when a folder was given: the SKILL.md name must equal it (agentskills.io). */
  folderName?: string;
  /** Files beside SKILL.md that a Porch skill cannot hold (scripts, references, assets). */
  ignoredFiles: string[];
}

async function filesUnder(folder: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(folder, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await filesUnder(folder, path)));
    else if (entry.isFile() && path !== 'SKILL.md') files.push(path);
  }
  return files.sort();
}

/** Reads `path` (as the operator typed it, resolved against `cwd`); messages name it as typed. */
async function readSource(cwd: string, path: string): Promise<SkillSource> {
  let info: Stats;
  try {
    info = await stat(resolve(cwd, path));
  } catch (err) {
    throw new CliUsageError(`Cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}.`);
  }
  const file = info.isDirectory() ? join(path, 'SKILL.md') : path;
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new CliUsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}.`);
  }
  if (!info.isDirectory()) return { text, ignoredFiles: [] };
  // Resolved first, so `.` or `../skill` name the folder itself rather than the path as typed.
  const folder = resolve(cwd, path);
  return { text, folderName: basename(folder), ignoredFiles: await filesUnder(folder) };
}

/** What an import did, in a sentence. */
function describeImport({ outcome, name, version, account_id }: ImportedAgentSkill): string {
  if (outcome === 'created') return `Created skill "${name}" in ${account_id}`;
  if (outcome === 'updated') return `Updated skill "${name}" in ${account_id} to version ${version}`;
  return `Skill "${name}" in ${account_id} already holds this SKILL.md (version ${version}); nothing changed`;
}

export function registerSkillsCommands(program: Command, context: CliContext): void {
  const skills = program.command('skills').description('Move skills between Porch and agent tools (Agent Skills SKILL.md format)');

  skills
    .command('import')
    .description(
      'Create (or update, when imported before or exported from this account) a Porch custom skill from an Agent Skill (a folder with SKILL.md, or a SKILL.md file)',
    )
    .argument('<folder-or-skill-md>', 'skill folder or SKILL.md file')
    .requiredOption('--account <account-id>', 'account id')
    .option('--category <category>', 'category (default: metadata porch-category, else "agent-skill")')
    .option('--model <model-id>', 'default model, <provider>/<model_name>')
    .option('--json', 'print JSON')
    .action(async (path: string, options: { account: string; category?: string; model?: string; json?: boolean }) => {
      const source = await readSource(context.cwd, path);
      const imported = await withApplication(context, ({ core }) =>
        importAgentSkill(core, options.account, source.text, {
          ...(source.folderName === undefined ? {} : { expectedName: source.folderName }),
          ...(options.category === undefined ? {} : { category: options.category }),
          ...(options.model === undefined ? {} : { model: options.model }),
        }),
      );
      if (source.ignoredFiles.length > 0) {
        // Porch skills hold instructions only; say what stayed behind rather than dropping it silently.
        // The names are the folder's (often cloned from a third party), so their control characters
        // are escaped (regression: a file named with ESC and BEL codes cleared and retitled the terminal).
        context.stderr.write(`porch: not imported (a Porch skill holds only the SKILL.md instructions): ${visible(source.ignoredFiles.join(', '))}\n`);
      }
      print(
        context.stdout,
        { ...imported, ignored_files: source.ignoredFiles },
        options,
        () =>
          `${describeImport(imported)}:\n${rows([
            ['id', imported.id],
            ['category', imported.category],
          ])}`,
      );
    });

  skills
    .command('export')
    .description('Write a Porch custom skill as an Agent Skill (SKILL.md)')
    .argument('<skill-id>', 'skill id')
    .requiredOption('--account <account-id>', 'account id')
    .option('--output <folder>', 'write <folder>/<name>/SKILL.md instead of printing it')
    .action(async (skillId: string, options: { account: string; output?: string }) => {
      refuseBlankFileName('--output', options.output, 'the folder to write the skill into (leave --output out to print it)');
      const document = await withApplication(
        context,
        async ({ core }) => porchSkillToAgentSkill(await core.catalog.getNewestSkill(options.account, skillId)),
        READS_ONLY,
      );
      const text = renderSkillMd(document);
      if (options.output === undefined) {
        context.stdout.write(text);
        return;
      }
      const target = join(options.output, document.name, 'SKILL.md');
      await mkdir(resolve(context.cwd, dirname(target)), { recursive: true });
      await writeOutputFile(context.cwd, target, text, 'the skill');
      context.stdout.write(`${target}\n`);
    });
}
