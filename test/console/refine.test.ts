/**
 * The refine page over real HTTP: the link a real `analyze_prompt` call hands out opens the same
 * prompt with the same scores, anonymously or signed in; the form (no JavaScript) and the htmx
 * fragment analyse again; CSRF guards both; an over-long prompt is refused with a clear message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFINE_PROMPT_MAX_CODE_POINTS, REFINE_SHORTENED_FROM_PARAMETER } from '../../src/core/analyzer/index.js';
import type { PromptAnalysis } from '../../src/core/analyzer/index.js';
import { consoleBrowser, signedInBrowser, textareaText } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { connectHttp, describeResult } from '../helpers/mcp-client.js';

let harness: Harness;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
});
afterAll(async () => {
  await harness.close();
});

const PROMPT = 'You are a senior copy editor. Rewrite the text below for a general audience in at most 3 sentences & keep <names>.';

async function analyseOverMcp(prompt: string): Promise<PromptAnalysis> {
  const connection = await connectHttp(harness);
  try {
    const result = await connection.client.callTool({ name: 'analyze_prompt', arguments: { prompt } });
    expect(result.isError, describeResult(result)).toBeFalsy();
    return result.structuredContent as PromptAnalysis;
  } finally {
    await connection.close();
  }
}

/** The link's path and query, on the test server (the harness's public URL names port 0). */
function onServer(refineUrl: string): string {
  const link = new URL(refineUrl);
  return `${link.pathname}${link.search}`;
}

/** The scores a page shows, read from its `data-score` cells. */
function shownScores(html: string): Record<string, number> {
  return Object.fromEntries([...html.matchAll(/data-score="([a-z]+)">(\d+)</g)].map((match) => [match[1], Number(match[2])]));
}

function expectedScores(analysis: PromptAnalysis): Record<string, number> {
  return { overall: analysis.overall, ...analysis.scores };
}

function textareaOf(html: string): string {
  return textareaText(html, 'id="prompt"');
}

describe('the link analyze_prompt hands out', () => {
  it('opens without sign-in, showing the same prompt, scores and suggestions as the MCP answer', async () => {
    const analysis = await analyseOverMcp(PROMPT);
    const page = await consoleBrowser(harness).get(onServer(analysis.refine_url));
    expect(page.status, page.html).toBe(200);
    expect(textareaOf(page.html)).toBe(PROMPT);
    expect(shownScores(page.html)).toEqual(expectedScores(analysis));
    for (const suggestion of analysis.suggestions)
      expect(page.html).toContain(suggestion.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;'));
    expect(page.html).not.toContain('Sign out');
  });

  it('shows the signed-in account in the frame for an author with a session', async () => {
    const analysis = await analyseOverMcp(PROMPT);
    const { browser, email } = await signedInBrowser(harness);
    const page = await browser.get(onServer(analysis.refine_url));
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain(email);
    expect(page.html).toContain('aria-current="page">Refine a prompt');
    expect(shownScores(page.html)).toEqual(expectedScores(analysis));
  });

  it('opens a link cut at the link limit (a prompt longer than it, truncated by the analyzer) and analyses it', async () => {
    const analysis = await analyseOverMcp(`Write a summary of the report. ${'Keep every figure exact. '.repeat(200)}`);
    const page = await consoleBrowser(harness).get(onServer(analysis.refine_url));
    expect(page.status, page.html.slice(0, 500)).toBe(200);
    expect([...textareaOf(page.html)]).toHaveLength(REFINE_PROMPT_MAX_CODE_POINTS);
    expect(shownScores(page.html)).toHaveProperty('overall');
  });

  it('says when the link carried only the first part of a longer prompt, and that the scores are of that part (regression: other scores, silently)', async () => {
    const prompt = `Summarise the meeting notes for the team. ${'The team discussed the roadmap and hiring. '.repeat(60)}You are a senior project manager. Answer as JSON.`;
    const analysis = await analyseOverMcp(prompt);
    const link = new URL(analysis.refine_url);
    expect(link.searchParams.get(REFINE_SHORTENED_FROM_PARAMETER)).toBe(String([...prompt].length));
    const page = await consoleBrowser(harness).get(onServer(analysis.refine_url));
    expect(page.status, page.html.slice(0, 500)).toBe(200);
    expect([...textareaOf(page.html)]).toHaveLength(REFINE_PROMPT_MAX_CODE_POINTS);
    expect(page.html).toContain(
      `The prompt was shortened to its first 2,000 of ${[...prompt].length.toLocaleString('en')} characters to fit in the link, and these scores are of that part. Analyse the whole prompt with the analyze_prompt MCP tool.`,
    );
    expect(page.html).toContain('class="notice notice-info" role="status"');
    // Editing the prompt analyses the author's own text: the fragment has no notice.
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const edited = await browser.post('/refine/analysis', { prompt: textareaOf(page.html) });
    expect(edited.html).not.toContain('was shortened');
  });

  it('says nothing of a shortening for a prompt the link carried whole', async () => {
    const page = await consoleBrowser(harness).get(onServer((await analyseOverMcp(PROMPT)).refine_url));
    expect(page.html).not.toContain('was shortened');
  });

  it.each([
    ['not a number', '3000<script>alert(1)</script>'],
    ['a leading zero', '03000'],
    ['a fraction', '3000.5'],
    ['no longer than the prompt shown', '5'],
    ['longer than any prompt analyze_prompt accepts', '100001'],
    ['repeated, the last one bad', ['3000', 'x']],
  ])('ignores a shortened_from that no cut could have left: %s', async (_, value) => {
    const query = new URLSearchParams({ prompt: 'Summarise this.' });
    for (const one of [value].flat()) query.append(REFINE_SHORTENED_FROM_PARAMETER, one);
    const page = await consoleBrowser(harness).get(`/refine?${query.toString()}`);
    expect(page.status, page.html.slice(0, 300)).toBe(200);
    expect(page.html).not.toContain('was shortened');
    expect(page.html).not.toContain('<script>alert');
    expect(textareaOf(page.html)).toBe('Summarise this.');
  });

  it('opens a link to a long prompt in a non-Latin script', async () => {
    const prompt = `あなたは編集者です。${'次の文章を三文以内で要約してください。'.repeat(120)}`;
    const analysis = await analyseOverMcp(prompt);
    const page = await consoleBrowser(harness).get(onServer(analysis.refine_url));
    expect(page.status, page.html.slice(0, 300)).toBe(200);
    expect(shownScores(page.html)).toEqual(expectedScores(await analyseOverMcp(textareaOf(page.html))));
  });

  it('opens with an empty box and no analysis when the link has no prompt', async () => {
    const page = await consoleBrowser(harness).get('/refine');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Write or paste a prompt');
    expect(shownScores(page.html)).toEqual({});
  });
});

describe('analysing again', () => {
  it('without JavaScript, posting the form answers the whole page with the new scores', async () => {
    const browser = consoleBrowser(harness);
    const first = await browser.get('/refine?prompt=Summarise%20this.');
    const edited = `${PROMPT} Answer as a bulleted list of at most 5 items.`;
    const posted = await browser.post('/refine', { prompt: edited });
    expect(posted.status, posted.html).toBe(200);
    expect(posted.html).toContain('<!doctype html>');
    expect(textareaOf(posted.html)).toBe(edited);
    const analysis = await analyseOverMcp(edited);
    expect(shownScores(posted.html)).toEqual(expectedScores(analysis));
    expect(shownScores(posted.html)).not.toEqual(shownScores(first.html));
  });

  it('answers the posted form at the prompt’s own address, so a reload reads the page instead of sending the form again (regression: resubmitted)', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const posted = await browser.post('/refine', { prompt: PROMPT, goal: 'a short summary' });
    expect(posted.status, posted.html).toBe(200);
    const address = `/refine?prompt=${encodeURIComponent(PROMPT)}&goal=a%20short%20summary`;
    expect(posted.html).toContain(`data-address="${address.replaceAll('&', '&amp;')}"`);
    // That address opens the same prompt with the same scores.
    const reloaded = await browser.get(address);
    expect(textareaOf(reloaded.html)).toBe(PROMPT);
    expect(shownScores(reloaded.html)).toEqual(shownScores(posted.html));
    // A prompt too long for an address that could be reloaded, or a refused one, leaves the bare page there.
    for (const prompt of ['🙂'.repeat(REFINE_PROMPT_MAX_CODE_POINTS), 'é'.repeat(REFINE_PROMPT_MAX_CODE_POINTS + 1)]) {
      const long = await browser.post('/refine', { prompt });
      expect(long.html).toContain('data-address="/refine"');
    }
  });

  it('the htmx fragment answers the analysis alone and points the address bar at the edited prompt', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const fragment = await browser.post('/refine/analysis', { prompt: PROMPT, goal: '' }, { headers: { 'hx-request': 'true' } });
    expect(fragment.status, fragment.html).toBe(200);
    expect(fragment.html).not.toContain('<html');
    expect(fragment.html).toMatch(/^<section id="analysis"/);
    expect(shownScores(fragment.html)).toEqual(expectedScores(await analyseOverMcp(PROMPT)));
    expect(fragment.headers.get('hx-replace-url')).toBe(`/refine?prompt=${encodeURIComponent(PROMPT)}`);
    // Cleared or refused, the address drops the earlier prompt, so a reload shows what is on screen.
    for (const prompt of ['', '   ']) {
      const cleared = await browser.post('/refine/analysis', { prompt, goal: '' }, { headers: { 'hx-request': 'true' } });
      expect(cleared.headers.get('hx-replace-url'), JSON.stringify(prompt)).toBe('/refine');
    }
  });

  it('a goal sharpens the suggestions and travels in the address', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const fragment = await browser.post('/refine/analysis', { prompt: 'Summarise this email.', goal: 'extract invoice fields as JSON' });
    expect(fragment.status).toBe(200);
    expect(fragment.headers.get('hx-replace-url')).toContain('goal=extract%20invoice%20fields%20as%20JSON');
  });

  it('refuses a prompt over the limit with a message naming it, before analysing', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const tooLong = 'é'.repeat(REFINE_PROMPT_MAX_CODE_POINTS + 1);
    const fragment = await browser.post('/refine/analysis', { prompt: tooLong });
    expect(fragment.status).toBe(200);
    expect(fragment.html).toContain('This prompt has 2,001 characters; the refine page analyses prompts of up to 2,000.');
    expect(fragment.headers.get('hx-replace-url'), 'an address that cannot hold it drops the earlier prompt').toBe('/refine');
    const page = await browser.post('/refine', { prompt: tooLong });
    expect(page.status).toBe(400);
    expect(page.html).toContain('analyses prompts of up to 2,000');
    expect(textareaOf(page.html)).toBe(tooLong);
  });

  it('counts characters, not UTF-16 units: 2,000 emoji are within the limit', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const fragment = await browser.post('/refine/analysis', { prompt: '🙂'.repeat(REFINE_PROMPT_MAX_CODE_POINTS) });
    expect(fragment.html).not.toContain('analyses prompts of up to');
    expect(shownScores(fragment.html)).toHaveProperty('overall');
    // Too long to carry in an address that could be reloaded: the address drops the prompt.
    expect(fragment.headers.get('hx-replace-url')).toBe('/refine');
  });

  it("shows the analyzer's own message for a blank prompt", async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const page = await browser.post('/refine', { prompt: '   ' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('The prompt must not be blank.');
  });

  it('refuses a post without the form token, or with another browser’s', async () => {
    const browser = consoleBrowser(harness);
    await browser.get('/refine');
    const other = consoleBrowser(harness);
    await other.get('/refine');
    expect((await browser.post('/refine', { prompt: PROMPT }, { csrf: null })).status).toBe(403);
    expect((await browser.post('/refine/analysis', { prompt: PROMPT }, { csrf: other.csrf() })).status).toBe(403);
    expect((await consoleBrowser(harness).post('/refine/analysis', { prompt: PROMPT }, { csrf: 'x'.repeat(43) })).status).toBe(403);
  });

  it('answers an unknown path under /refine with the console’s HTML 404', async () => {
    const page = await consoleBrowser(harness).get('/refine/nothing-here');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});
