import type { BundleInput } from '../bundle/bundle-schema.js';

/**
 * The sample catalog a fresh install starts with: one of each resource, wired into one workflow,
 * so every endpoint has something real to list and execute, offline with the echo model.
 */
export const DEMO_BUNDLE: BundleInput = {
  version: 1,
  personas: [
    {
      key: 'plain-editor',
      name: 'Plain-English editor',
      description: 'Rewrites text so anyone can read it.',
      emoji: '✍️',
      content: 'You are a patient editor who rewrites text in plain English. Keep the meaning, cut jargon, prefer short sentences, and never invent facts.',
    },
  ],
  context_cards: [
    {
      title: 'Brand voice',
      content: 'Warm, direct and concise. Use "you" and "we". Avoid hype words such as "revolutionary" or "seamless".',
      category: 'style',
      tags: ['voice', 'style'],
    },
    {
      title: 'Product facts',
      content: 'Porch is a self-hosted prompt-orchestration server. It runs as one Node.js process over one SQLite file.',
      category: 'facts',
      tags: ['product'],
    },
  ],
  compositions: [
    {
      key: 'release-notes',
      name: 'Release notes',
      description: 'Turns a list of changes into short release notes.',
      tags: ['writing', 'product'],
      template: 'Write release notes for {{product}} version {{version}}.\nAudience: {{audience}}.\nChanges:\n{{changes}}',
      variables: [
        { name: 'product', required: true, description: 'Product name' },
        { name: 'version', required: true, description: 'Version being released' },
        { name: 'changes', required: true, description: 'The changes, one per line' },
        { name: 'audience', default: 'developers', description: 'Who reads the notes' },
      ],
    },
  ],
  skills: [
    {
      key: 'summarise',
      name: 'Summarise',
      description: 'Summarises any text in a few bullet points.',
      category: 'writing',
      instructions: 'Summarise the user text in at most {{bullets}} bullet points. Keep names and numbers exact.',
    },
  ],
  workflows: [
    {
      key: 'release-announcement',
      name: 'Release announcement',
      description: 'Drafts release notes, summarises them, rewrites them in plain English and checks the result.',
      category: 'writing',
      variables: [
        { name: 'product', required: true, description: 'Product name' },
        { name: 'version', required: true, description: 'Version being released' },
        { name: 'changes', required: true, description: 'The changes, one per line' },
      ],
      nodes: [
        {
          id: 'draft',
          kind: 'composition',
          composition: 'release-notes',
          variables: { product: '{{product}}', version: '{{version}}', changes: '{{changes}}' },
        },
        { id: 'summary', kind: 'skill', skill: 'summarise', input: '{{draft}}', variables: { bullets: '3' } },
        { id: 'plain', kind: 'persona', persona: 'plain-editor', input: '{{summary}}' },
        { id: 'scan', kind: 'sanitise', text: '{{plain}}' },
      ],
      outputs: { announcement: 'plain', findings: 'scan' },
    },
  ],
};
