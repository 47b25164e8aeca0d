/**
 * A composition's variable cannot be both required and given a default, as a workflow's cannot
 * (regression: a composition accepted one, on create and on update, and its execution without
 * the "required" value answered with the default). A composition stored with one before it was
 * refused stays readable, executable, exportable and editable in its other fields.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PorchError } from '../../src/core/errors.js';
import { compositionRecord, insertRecords } from '../db/fixtures.js';
import { createHarness, describeResponse, type Harness } from '../helpers/harness.js';

const REQUIRED_WITH_DEFAULT = { name: 'd', required: true, default: 'x' };
const MESSAGE = 'variables[0].default: a required variable cannot have a default (drop one of them)';

let harness: Harness;
let key: string;
let accountId: string;

beforeEach(async () => {
  harness = await createHarness();
  ({ key, accountId } = await harness.expertWithKey());
});
afterEach(() => harness.close());

async function refusal(promise: Promise<unknown>): Promise<PorchError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (err: unknown) => err,
  );
  if (!(error instanceof PorchError)) throw error;
  return error;
}

describe('a required composition variable with a default', () => {
  it('is refused on create with the message a workflow gets for the same variable', async () => {
    const composition = await harness.api('POST', '/compositions', {
      key,
      body: { name: 'ReqDef', template: 'Hello {{d}}', variables: [REQUIRED_WITH_DEFAULT] },
    });
    expect(composition.status, describeResponse(composition)).toBe(400);
    expect(composition.body.error.code).toBe('VALIDATION_ERROR');
    expect(composition.body.error.message).toBe(MESSAGE);

    const workflow = await harness.api('POST', '/workflows', {
      key,
      body: { name: 'W', variables: [REQUIRED_WITH_DEFAULT], nodes: [{ id: 'a', kind: 'template', template: '{{d}}' }] },
    });
    expect(workflow.status, describeResponse(workflow)).toBe(400);
    expect(workflow.body.error.message).toBe(composition.body.error.message);
  });

  it('is refused on an update that sends it, and the composition keeps its version', async () => {
    const created = await harness.api<{ id: string }>('POST', '/compositions', {
      key,
      body: { name: 'ReqDef', template: 'Hello {{d}}', variables: [{ name: 'd', required: true }] },
    });
    expect(created.status, describeResponse(created)).toBe(201);
    const patched = await harness.api('PATCH', `/compositions/${created.body.data.id}`, {
      key,
      body: { variables: [{ ...REQUIRED_WITH_DEFAULT, default: 'y' }] },
    });
    expect(patched.status, describeResponse(patched)).toBe(400);
    expect(patched.body.error.message).toBe(MESSAGE);
    const got = await harness.api<{ version: number }>('GET', `/compositions/${created.body.data.id}`, { key });
    expect(got.body.data.version).toBe(1);
  });

  it('is refused in an imported bundle, naming its path, and nothing is written', async () => {
    const error = await refusal(
      harness.core.bundles.importBundle(accountId, {
        compositions: [{ key: 'reqdef', name: 'ReqDef', template: 'Hello {{d}}', variables: [REQUIRED_WITH_DEFAULT] }],
      }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe(`Invalid bundle: compositions[0].${MESSAGE}`);
    expect((await harness.store.catalog.exportAll(accountId)).compositions).toEqual([]);
  });
});

describe('a composition stored with a required variable with a default before it was refused', () => {
  let id: string;
  beforeEach(async () => {
    const record = compositionRecord(accountId, {
      name: 'Legacy',
      template: 'Hello {{d}}',
      variables: [{ name: 'd', required: true, default: 'x' }],
      bundleKey: 'legacy',
    });
    await insertRecords(harness.store, { compositions: [record] });
    id = record.id;
  });

  it('is read as stored and executes as before: its default is the value of a call that sends none', async () => {
    const got = await harness.api<{ variables: unknown[] }>('GET', `/compositions/${id}`, { key });
    expect(got.status, describeResponse(got)).toBe(200);
    expect(got.body.data.variables).toEqual([REQUIRED_WITH_DEFAULT]);

    const executed = await harness.api<{ content: string }>('POST', `/compositions/${id}/execute`, { key, body: {} });
    expect(executed.status, describeResponse(executed)).toBe(200);
    expect(executed.body.data.content).toBe('Hello x');
    const sent = await harness.api<{ content: string }>('POST', `/compositions/${id}/execute`, { key, body: { variables: { d: 'there' } } });
    expect(sent.body.data.content).toBe('Hello there');
  });

  it('takes an update that does not send its variables, template included, and refuses one that sends them unchanged', async () => {
    const renamed = await harness.api<{ name: string; version: number }>('PATCH', `/compositions/${id}`, { key, body: { name: 'Renamed' } });
    expect(renamed.status, describeResponse(renamed)).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', version: 2 });

    const retemplated = await harness.api<{ variables: unknown[] }>('PATCH', `/compositions/${id}`, { key, body: { template: 'Hi {{d}}' } });
    expect(retemplated.status, describeResponse(retemplated)).toBe(200);
    expect(retemplated.body.data.variables).toEqual([REQUIRED_WITH_DEFAULT]);

    const resent = await harness.api('PATCH', `/compositions/${id}`, { key, body: { variables: [REQUIRED_WITH_DEFAULT] } });
    expect(resent.status, describeResponse(resent)).toBe(400);
    expect(resent.body.error.message).toBe(MESSAGE);

    const fixed = await harness.api('PATCH', `/compositions/${id}`, { key, body: { variables: [{ name: 'd', default: 'x' }] } });
    expect(fixed.status, describeResponse(fixed)).toBe(200);
  });

  it('is exported as stored, and the export is refused by an import as a new definition would be', async () => {
    const exported = await harness.core.bundles.exportBundle(accountId);
    expect(exported.compositions).toMatchObject([{ key: 'legacy', variables: [REQUIRED_WITH_DEFAULT] }]);
    const fresh = await harness.createAccount();
    const error = await refusal(harness.core.bundles.importBundle(fresh.accountId, exported));
    expect(error.message).toBe(`Invalid bundle: compositions[0].${MESSAGE}`);
  });
});
