/**
 * Background steps (claiming queued runs, polling webhook deliveries, renewing the lease) fail on
 * every poll while the database is out of reach: their lines are written at most every 10 s,
 * without a stack, saying how many failures each stands for. Regression: 200 lines with stacks
 * in 23 s of a PostgreSQL outage buried the one line that said why.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createBackgroundFailureLog } from '../../src/core/store-outage-log.js';
import { StoreUnavailableError } from '../../src/db/store.js';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('a background step that fails', () => {
  it('is logged at most every 10 s while the store is out of reach, counting the failures, without a stack', async () => {
    const { logger, lines } = capturingLogger();
    let now = 0;
    const log = createBackgroundFailureLog(logger, 'could not claim queued runs; retrying at the next poll', { now: () => now });
    const outage = new StoreUnavailableError('The PostgreSQL database cannot be reached.');
    for (let second = 0; second < 25; second += 1) {
      now = second * 1_000;
      log(outage);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.level, line.msg, line.reason, line.failures, 'err' in line])).toEqual([
      [40, 'could not claim queued runs; retrying at the next poll', 'The PostgreSQL database cannot be reached.', 1, false],
      [40, 'could not claim queued runs; retrying at the next poll', 'The PostgreSQL database cannot be reached.', 10, false],
      [40, 'could not claim queued runs; retrying at the next poll', 'The PostgreSQL database cannot be reached.', 10, false],
    ]);
  });

  it('is logged each time, with its error, when it is anything else', async () => {
    const { logger, lines } = capturingLogger();
    const log = createBackgroundFailureLog(logger, 'webhook delivery poll failed', { now: () => 0 });
    log(new Error('a bug'));
    log(new Error('a bug'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.level, line.msg, (line.err as { message: string }).message])).toEqual([
      [50, 'webhook delivery poll failed', 'a bug'],
      [50, 'webhook delivery poll failed', 'a bug'],
    ]);
  });
});
