/**
 * The console's judge page over real HTTP, with an AI provider (the fake OpenAI-compatible server)
 * whose models not every plan may use and judge thresholds that are not the defaults: the score
 * as the API gives it, the meter on the configured thresholds, and a choice of the models the
 * account may use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInBrowser } from '../helpers/console-browser.js';
import { createProviderHarness, type ProviderHarness } from '../helpers/provider-harness.js';

let harness: ProviderHarness;
beforeAll(async () => {
  harness = await createProviderHarness({
    models: [
      { name: 'fast', plans: ['expert'], max_output_tokens: 200 },
      { name: 'basic', plans: ['free', 'builder', 'expert'], max_output_tokens: 200 },
    ],
    config: { judge: { pass_threshold: 75, needs_revision_threshold: 50 } },
  });
});
afterAll(async () => {
  await harness.close();
});

function judgeReply(score: number): void {
  harness.fake.setBehaviour({ content: JSON.stringify({ reasoning: 'Assessed.', score, suggestions: [] }) });
}

/** The options of the model select, and which one is selected. */
function modelOptions(html: string): { models: string[]; selected: string | undefined } {
  const select = /<select id="model" name="model"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
  const options = [...select.matchAll(/<option value="([^"]+)"( selected)?/g)];
  return { models: options.map((option) => String(option[1])), selected: options.find((option) => option[2] !== undefined)?.[1] };
}

describe('judge page', () => {
  it('shows a fractional score as the API gives it, never rounded across the pass mark (regression: 69.6 read "70 / 100", needs revision)', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get('/console/judge');
    for (const [score, shown] of [
      [69.6, '69.6'],
      [74.96, '74.9'],
      [80, '80'],
    ] as const) {
      judgeReply(score);
      const judged = await browser.post('/console/judge', { prompt: 'Write a poem.', model: 'fake/fast' });
      expect(judged.status, judged.html).toBe(200);
      expect(judged.html).toContain(`<div class="figure">${shown}<span class="muted"> / 100</span>`);
      expect(judged.html).toContain(`${shown} of 100</meter>`);
    }
  });

  it('draws the meter on the configured thresholds, not 40 and 70 (regression: hard-coded)', async () => {
    const { browser } = await signedInBrowser(harness);
    await browser.get('/console/judge');
    judgeReply(74.96);
    const judged = await browser.post('/console/judge', { prompt: 'Write a poem.' });
    expect(judged.status, judged.html).toBe(200);
    expect(judged.html).toMatch(/<meter min="0" max="100" low="50" high="75" optimum="100" value="74.96"/);
    expect(judged.html).toContain('Pass from 75, needs revision from 50.');
    expect(judged.html).toMatch(/badge badge-warn">needs revision</);
  });

  it('offers the models the plan allows, starting on the default when allowed (regression: no choice, the default refused with 403)', async () => {
    const expert = await signedInBrowser(harness);
    expect(modelOptions((await expert.browser.get('/console/judge')).html)).toEqual({
      models: ['fake/fast', 'fake/basic', 'echo/echo'],
      selected: 'fake/fast',
    });

    const builder = await signedInBrowser(harness, { plan: 'builder' });
    const page = await builder.browser.get('/console/judge');
    expect(modelOptions(page.html)).toEqual({ models: ['fake/basic', 'echo/echo'], selected: 'fake/basic' });
    judgeReply(60);
    const judged = await builder.browser.post('/console/judge', { prompt: 'Write a poem.', model: 'fake/basic' });
    expect(judged.status, judged.html).toBe(200);
    expect(judged.html).toContain('<div class="figure">60<span class="muted"> / 100</span>');
    // The choice is kept for the next run.
    expect(modelOptions(judged.html).selected).toBe('fake/basic');
    // A model outside the plan, sent anyway, gets run_judge's own refusal.
    const refused = await builder.browser.post('/console/judge', { prompt: 'Write a poem.', model: 'fake/fast' });
    expect(refused.status, refused.html).toBe(403);
    expect(refused.html).toContain('not available on the builder plan');
  });

  it("offers only the models the organisation's EU-only policy allows", async () => {
    const { browser, accountId } = await signedInBrowser(harness);
    const account = await harness.core.accounts.showAccount(accountId);
    await harness.core.accounts.setOrganisationPolicy(account.organisation_id, { euOnlyModels: true });
    expect(modelOptions((await browser.get('/console/judge')).html)).toEqual({ models: ['echo/echo'], selected: 'echo/echo' });
  });
});
