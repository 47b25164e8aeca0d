/**
 * Telemetry's test of a stop from outside and the run's (`isCallStop`) are one: a CallStopped
 * wrapped a few causes deep (a workflow hands it to its nodes inside its own error) is a stop to
 * both (regression: the two walked the causes to different depths, three levels and four).
 */
import { describe, expect, it } from 'vitest';
import { CallStopped, isCallStop } from '../../../src/core/errors.js';
import { stoppedFromOutside } from '../../../src/core/telemetry/stopped-calls.js';

function abortedWith(reason: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

/** A CallStopped under `levels` wrapping errors. */
function wrapped(levels: number): Error {
  let error: Error = new CallStopped('its run was cancelled');
  for (let level = 0; level < levels; level++) error = new Error(`wrapper ${level}`, { cause: error });
  return error;
}

describe('a stop from outside', () => {
  it('is the same to telemetry and to the run, however deep it is wrapped', () => {
    for (const levels of [0, 1, 2, 3, 4, 5]) {
      const reason = wrapped(levels);
      expect(stoppedFromOutside(abortedWith(reason)), `${levels} levels`).toBe(isCallStop(reason));
    }
    expect(stoppedFromOutside(abortedWith(wrapped(3)))).toBe(true);
  });

  it('is neither a deadline nor a signal not aborted', () => {
    expect(stoppedFromOutside(abortedWith(new Error('deadline')))).toBe(false);
    expect(stoppedFromOutside(new AbortController().signal)).toBe(false);
    expect(stoppedFromOutside(undefined)).toBe(false);
  });
});
