import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_RULES, findingSchema, scanResultSchema } from '../../../src/core/sanitiser/index.js';

describe('built-in rule catalogue', () => {
  it('has unique rule ids in the pii. and secret. namespaces', () => {
    const ids = BUILT_IN_RULES.map((rule) => rule.rule_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^(?:pii|secret)\.[a-z0-9_]+$/.test(id))).toEqual([]);
  });

  it('gives every secret rule the secret category and personal data the personal_data category', () => {
    for (const rule of BUILT_IN_RULES) expect(rule.category).toBe(rule.rule_id.startsWith('secret.') ? 'secret' : 'personal_data');
  });

  it('documents every rule id in the sanitiser README', () => {
    const readme = readFileSync(new URL('../../../src/core/sanitiser/README.md', import.meta.url), 'utf8');
    expect(BUILT_IN_RULES.map((rule) => rule.rule_id).filter((id) => !readme.includes(`\`${id}\``))).toEqual([]);
  });
});

describe('scan result schema', () => {
  it('accepts a scan result and rejects an unknown severity', () => {
    const finding = { rule_id: 'pii.email', label: 'Email address', severity: 'warn', match: 'a@b.co', start: 0, end: 6 };
    expect(scanResultSchema.safeParse({ findings: [finding], severity: 'warn', truncated: false }).success).toBe(true);
    expect(scanResultSchema.safeParse({ findings: [], severity: 'danger', truncated: false }).success).toBe(false);
  });

  it('describes every field, for the OpenAPI document and MCP tool schema', () => {
    const resultShape = scanResultSchema.shape;
    const findingShape = findingSchema.shape;
    const fields = [resultShape.findings, resultShape.severity, resultShape.truncated, ...Object.values(findingShape)];
    expect(fields.every((field) => typeof field.description === 'string' && field.description.length > 0)).toBe(true);
  });
});
