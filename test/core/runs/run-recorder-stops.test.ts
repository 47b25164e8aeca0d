/**
 * An execution its caller stopped is recorded as a cancelled run, with no error code in its
 * result and no webhook event; a provider failure is still a failed run with run.failed
 * (regression: a client that went away left a failed run holding AI_SERVICE_ERROR, and a
 * run.failed webhook).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { abortedError } from '../../../src/core/ai/provider-errors.js';
import { CallStopped, PorchError } from '../../../src/core/errors.js';
import { createRunRecorder, failedResult } from '../../../src/core/runs/run-recorder.js';
import type { RecordedRun, WebhookEventRecord } from '../../../src/db/store.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
beforeEach(async () => {
  harness = await createCoreHarness();
});
afterEach(() => harness.close());

it('records a call its client stopped as cancelled, with a null result and no event, and a provider failure as failed', async () => {
  const { key } = await harness.expertWithKey();
  const caller = await harness.core.authenticator.authenticate({ apiKey: key });
  const written: Array<{ run: RecordedRun; events: readonly WebhookEventRecord[] }> = [];
  const recorder = createRunRecorder(
    {
      ...harness.store.runs,
      async insert(run, events = []) {
        written.push({ run, events });
      },
    },
    harness.clock,
    harness.core.deferredWrites,
  );
  const usage = { input_tokens: 12, output_tokens: 3, total_tokens: 15 };
  const outcome = {
    kind: 'persona',
    resourceId: 'p',
    version: 1,
    status: 'failed',
    model: 'fake/fast',
    usage,
    chargedTokens: 15,
    durationMs: 5,
    inputs: {},
  } as const;

  const left = new AbortController();
  left.abort(new CallStopped('the client closed the request'));
  await recorder.record(caller, { ...outcome, result: failedResult(abortedError('fake', left.signal, new Error('aborted'))) });
  await recorder.record(caller, { ...outcome, result: failedResult(new PorchError('AI_SERVICE_ERROR', "The AI provider 'fake' failed (HTTP 500).")) });

  const [stopped, failed] = written;
  expect(stopped?.run).toMatchObject({ status: 'cancelled', payload: { result: null }, totalTokens: 15, chargedTokens: 15 });
  expect(stopped?.events).toEqual([]);
  expect(failed?.run).toMatchObject({ status: 'failed', payload: { result: { error: { code: 'AI_SERVICE_ERROR' } } } });
  expect(failed?.events.map((event) => event.type)).toEqual(['run.failed']);
});
