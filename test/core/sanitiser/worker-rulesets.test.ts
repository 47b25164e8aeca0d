/**
 * Organisations with custom rules scan on the worker thread, which compiles each version of their
 * rules once and reuses the rules a new version kept. What these guarantee: every scan uses the
 * organisation's current rules, in any process, with the findings a scan on the event loop gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { PorchError } from '../../../src/core/errors.js';
import { newId } from '../../../src/core/ids.js';
import { createSanitiser, type CustomRuleDefinition } from '../../../src/core/sanitiser/index.js';
import { createSanitiserService, type SanitiserService } from '../../../src/core/sanitiser/sanitiser-service.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
const services: SanitiserService[] = [];
beforeAll(async () => {
  harness = await createCoreHarness();
});
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
  await harness.close();
});

/** A second sanitiser service on the same database: what another process has. */
function anotherProcess(): SanitiserService {
  const service = createSanitiserService(harness.store, systemClock);
  services.push(service);
  return service;
}

const codenames: CustomRuleDefinition = {
  rule_id: 'custom.codenames',
  label: 'Codename',
  severity: 'warn',
  enabled: true,
  kind: 'keywords',
  keywords: ['bluebird', 'Nightjar', 'café'],
};

describe('custom rules on the scan worker', () => {
  it('finds what a scan on the event loop finds, including matches ignoring case and near-misses inside longer words', async () => {
    const { organisationId } = await harness.createAccount();
    const ticket: CustomRuleDefinition = { rule_id: 'custom.ticket', label: 'Ticket', severity: 'block', enabled: true, kind: 'regex', pattern: 'PRJ-\\d{4}' };
    await harness.core.sanitiser.addCustomRule(organisationId, codenames);
    await harness.core.sanitiser.addCustomRule(organisationId, ticket);
    const text = 'BLUEBIRD, bluebirds, nightjar and cafés at the café; PRJ-1234 to ada@example.com';
    const result = await harness.core.sanitiser.scan(organisationId, text);
    expect(result.findings.map((finding) => finding.match)).toEqual(['BLUEBIRD', 'nightjar', 'café', 'PRJ-1234', 'ada@example.com']);
    expect(result).toEqual(createSanitiser({ custom: [codenames, ticket], overrides: [] }).scan(text));
  });

  it("applies a changed severity and label on the next scan, in this process and another's", async () => {
    const { organisationId } = await harness.createAccount();
    const other = anotherProcess();
    await harness.core.sanitiser.addCustomRule(organisationId, codenames);
    expect((await other.scan(organisationId, 'bluebird')).severity).toBe('warn');
    expect((await harness.core.sanitiser.scan(organisationId, 'bluebird')).severity).toBe('warn');
    // The keywords are unchanged, so the worker keeps their compiled rule; the finding must still change.
    await harness.core.sanitiser.addCustomRule(organisationId, { ...codenames, severity: 'block', label: 'Secret codename' });
    for (const service of [other, harness.core.sanitiser]) {
      const result = await service.scan(organisationId, 'bluebird');
      expect(result.findings.map((finding) => [finding.label, finding.severity])).toEqual([['Secret codename', 'block']]);
    }
    await other.updateCustomRule(organisationId, 'custom.codenames', { enabled: false });
    expect((await harness.core.sanitiser.scan(organisationId, 'bluebird')).findings).toEqual([]);
    await harness.core.sanitiser.addCustomRule(organisationId, { ...codenames, keywords: ['kingfisher'] });
    expect((await other.scan(organisationId, 'bluebird kingfisher')).findings.map((finding) => finding.match)).toEqual(['kingfisher']);
  });

  it('fails every scan of a stored rule the worker cannot compile with its VALIDATION_ERROR, not only the first', async () => {
    const { organisationId } = await harness.createAccount();
    const now = Date.now();
    // Written past the checks, as a rule stored by an older version could be.
    const invalid = { ...codenames, keywords: [] };
    await harness.store.sanitiserRules.upsert({
      id: newId(),
      organisationId,
      ruleId: invalid.rule_id,
      kind: 'custom',
      definition: invalid,
      createdAt: now,
      updatedAt: now,
    });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const failure = await harness.core.sanitiser.scan(organisationId, 'bluebird').catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(PorchError);
      expect(failure).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('sends a restarted worker the ruleset again', async () => {
    const { organisationId } = await harness.createAccount();
    const service = anotherProcess();
    await service.addCustomRule(organisationId, codenames);
    expect((await service.scan(organisationId, 'bluebird')).findings).toHaveLength(1);
    await service.close();
    expect((await service.scan(organisationId, 'bluebird')).findings).toHaveLength(1);
  });
});
