/**
 * A run executed in its request is recorded when it ends, with its run.completed / run.failed
 * event in the same write; the event is dated when the run finished (regression: it carried the
 * start time, five minutes early for a five-minute workflow, and before the run existed).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRunRecorder } from '../../../src/core/runs/run-recorder.js';
import type { RecordedRun, WebhookEventRecord } from '../../../src/db/store.js';
import { createCoreHarness, type CoreHarness } from '../../helpers/core-harness.js';

let harness: CoreHarness;
beforeEach(async () => {
  harness = await createCoreHarness();
});
afterEach(() => harness.close());

it("dates a run's finished event, and its delivery, when the run finished", async () => {
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
  const finishedAt = Date.parse('2026-11-29T12:05:00Z');
  harness.clock.set(finishedAt);
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  await recorder.record(caller, {
    kind: 'composition',
    resourceId: 'c',
    version: 1,
    status: 'completed',
    model: 'echo/echo',
    usage,
    chargedTokens: 2,
    durationMs: 300_000,
    inputs: {},
    result: {},
  });
  const [{ run, events } = { run: undefined, events: [] }] = written;
  expect(run).toMatchObject({ createdAt: finishedAt - 300_000, finishedAt });
  expect(events.map((event) => [event.type, event.createdAt, JSON.parse(event.payload).timestamp])).toEqual([
    ['run.completed', finishedAt, '2026-11-29T12:05:00.000Z'],
  ]);
});
