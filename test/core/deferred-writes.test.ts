/** Writes retried while the store is out of reach (core/deferred-writes.ts), and only then. */
import { describe, expect, it } from 'vitest';
import { createDeferredWrites } from '../../src/core/deferred-writes.js';
import { StoreUnavailableError } from '../../src/db/store.js';
import { createSilentLogger } from '../../src/logger.js';

describe('deferred writes', () => {
  it('retries a write the store could not take until it lands, answering at once', async () => {
    const writes = createDeferredWrites(createSilentLogger());
    let attempts = 0;
    await writes.attempt('a write', async () => {
      attempts += 1;
      if (attempts < 3) throw new StoreUnavailableError('out of reach');
    });
    expect(attempts).toBe(1);
    expect(writes.pending).toBe(1);
    await expect.poll(() => writes.pending, { timeout: 5_000 }).toBe(0);
    expect(attempts).toBe(3);
  });

  it('throws any other failure at once and keeps nothing', async () => {
    const writes = createDeferredWrites(createSilentLogger());
    await expect(writes.attempt('a refused write', () => Promise.reject(new Error('constraint')))).rejects.toThrow('constraint');
    expect(writes.pending).toBe(0);
  });

  it('tries what is pending once more on flush, and then forgets it', async () => {
    const writes = createDeferredWrites(createSilentLogger());
    let attempts = 0;
    await writes.attempt('a write', async () => {
      attempts += 1;
      throw new StoreUnavailableError('out of reach');
    });
    await writes.flush();
    expect(attempts).toBe(2);
    expect(writes.pending).toBe(0);
  });

  it('awaits an attempt under way on flush instead of writing twice at once (regression: two at once)', async () => {
    const writes = createDeferredWrites(createSilentLogger());
    let running = 0;
    let mostAtOnce = 0;
    let attempts = 0;
    await writes.attempt('a slow write', async () => {
      attempts += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        if (attempts === 1) throw new StoreUnavailableError('out of reach');
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        running -= 1;
      }
    });
    // The retry starts after its first pause; flush while it is under way.
    await expect.poll(() => running, { timeout: 5_000, interval: 10 }).toBe(1);
    await writes.flush();
    expect(mostAtOnce).toBe(1);
    expect(attempts).toBe(2);
    expect(writes.pending).toBe(0);
  });

  it('ends a flush at the first write the store still refuses, rather than wait on each in turn (second review: 15 s for three)', async () => {
    const writes = createDeferredWrites(createSilentLogger());
    const attempts = [0, 0, 0];
    for (const index of [0, 1, 2]) {
      await writes.attempt(`write ${index}`, async () => {
        attempts[index] = (attempts[index] ?? 0) + 1;
        throw new StoreUnavailableError('locked');
      });
    }
    await writes.flush();
    // Each was tried when made; on flush, only the first once more: the others would meet the same outage.
    expect(attempts).toEqual([2, 1, 1]);
    expect(writes.pending).toBe(0);
  });
});
