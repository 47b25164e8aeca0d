/**
 * Every `sh` block of every SKILL.md, run as written (bash, in the skill's folder) against a real
 * Porch server holding the demo catalog, so the procedures the skills teach cannot rot.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUNDLE } from '../../src/core/demo/demo-bundle.js';
import { PACKAGE_ROOT } from '../../src/rest/discovery/package-root.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const run = promisify(execFile);
/** A block is a handful of requests to a local server; anything slower is a hang. */
const BLOCK_TIMEOUT_MS = 20_000;

const skillsDir = join(PACKAGE_ROOT, 'skills');
const skills = readdirSync(skillsDir)
  .filter((name) => !name.startsWith('.'))
  .sort();

function shellBlocks(skill: string): string[] {
  const text = readFileSync(join(skillsDir, skill, 'SKILL.md'), 'utf8');
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

let harness: Harness;
let env: Record<string, string>;
let accountId: string;
beforeAll(async () => {
  harness = await createHarness();
  const created = await harness.expertWithKey({ credits: 1000 });
  accountId = created.accountId;
  const key = created.key;
  const demo = await harness.core.bundles.importBundle(accountId, DEMO_BUNDLE);
  const card = await harness.core.contextCards.create(accountId, { title: 'Procedure card', content: 'For the procedures.' });
  env = {
    PATH: process.env.PATH ?? '',
    PORCH_URL: harness.url,
    PORCH_API_KEY: key,
    CARD_ID: card.id,
    PERSONA_ID: demo.ids['persona:plain-editor'] ?? '',
  };
});
afterAll(() => harness.close());

describe.each(skills)('%s', (skill) => {
  const blocks = shellBlocks(skill);

  it('has runnable procedures', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it('runs every sh block as written, exit status 0', async () => {
    const outputs: string[] = [];
    for (const block of blocks) {
      try {
        const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', block], { cwd: join(skillsDir, skill), env, timeout: BLOCK_TIMEOUT_MS });
        outputs.push(stdout);
      } catch (err) {
        const failure = err as { code: number; stdout: string; stderr: string };
        throw new Error(
          `This block of skills/${skill}/SKILL.md failed (exit ${failure.code}):\n${block}\nstdout: ${failure.stdout}\nstderr: ${failure.stderr}`,
        );
      }
    }
    // Blocks that answer JSON answer successful envelopes or data, never an error envelope.
    for (const output of outputs) expect(output).not.toMatch(/"success":\s*false/);
    if (skill === 'porch-sanitise') {
      expect(outputs[0]).toBe('Ping [REDACTED: Email address] about the invoice.\n');
      expect(outputs[1]).toContain('stopped: exit code 3');
    }
    if (skill === 'porch-context-cards') {
      // The last block deleted the card.
      await expect(harness.core.contextCards.get(accountId, env.CARD_ID ?? '')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    }
  });
});
