/**
 * The workflow editor's messages over real HTTP, on "Draw the graph" and on save: a node without
 * a kind is told which kinds there are (regression: zod's "Invalid discriminator value"), and the
 * notice's sentence about the fields follows a full stop, whatever message it follows (regression:
 * "…nodes and outputs Each problem is shown at its field below.").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_KINDS } from '../../src/core/engine/node-kinds/index.js';
import { type ConsoleBrowser, signedInBrowser } from '../helpers/console-browser.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const KINDS = NODE_KINDS.map((kind) => kind.kind).join(', ');

let harness: Harness;
let browser: ConsoleBrowser;
beforeAll(async () => {
  harness = await createHarness({ backgroundWork: false });
  ({ browser } = await signedInBrowser(harness));
});
afterAll(async () => {
  await harness.close();
});

/** The error notice's text, as a person reads it. */
function errorNotice(html: string): string {
  const notice = /<div class="notice notice-error"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';
  return notice
    .replace(/<[^>]+>/g, '')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

/** The messages shown at the Definition field. */
function definitionErrors(html: string): string[] {
  const list = /<ul class="field-errors" id="f-definition-errors">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((match) => (match[1] ?? '').replace(/<[^>]+>/g, '').replaceAll('&quot;', '"'));
}

async function send(definition: string, intent: 'save' | 'preview') {
  await browser.get('/console/workflows/new');
  return browser.post('/console/workflows/new', { name: 'Triage', description: '', category: '', definition, intent });
}

describe('the workflow editor’s messages', () => {
  it('tell a node without a kind which kinds there are, and an unknown kind the same, on preview and on save', async () => {
    const missing = 'nodes:\n  - id: classify\n    kind: template\n    template: x\n  - id: answer\n    template: "{{classify}}"\n';
    const unknown = 'nodes:\n  - id: classify\n    kind: classifier\n    template: x\n';
    for (const intent of ['preview', 'save'] as const) {
      const refused = await send(missing, intent);
      expect(refused.status, refused.html).toBe(400);
      expect(errorNotice(refused.html)).toBe(`Invalid request: nodes[1].kind: is required: one of ${KINDS}. Each problem is shown at its field below.`);
      expect(definitionErrors(refused.html).join('\n')).toContain(`kind: is required: one of ${KINDS}`);
      const wrong = await send(unknown, intent);
      expect(errorNotice(wrong.html)).toBe(`Invalid request: nodes[0].kind: must be one of ${KINDS}. Each problem is shown at its field below.`);
    }
  });

  it('end the message with a full stop before saying each problem is at its field: an empty or non-mapping definition, a graph problem', async () => {
    for (const definition of ['', '- a list, not a mapping', 'just text']) {
      for (const intent of ['preview', 'save'] as const) {
        const refused = await send(definition, intent);
        expect(refused.status, refused.html).toBe(400);
        expect(errorNotice(refused.html), `${intent} ${JSON.stringify(definition)}`).toBe(
          'definition: must be a mapping with variables, nodes and outputs. Each problem is shown at its field below.',
        );
      }
    }
    // The operation words a graph problem without a full stop of its own.
    const unknownName = await send('nodes:\n  - id: a\n    kind: template\n    template: "{{zz}}"\n', 'save');
    expect(unknownName.status, unknownName.html).toBe(400);
    expect(errorNotice(unknownName.html)).toBe('nodes[0].template: references unknown name "zz". Each problem is shown at its field below.');
  });
});
