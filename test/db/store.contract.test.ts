/**
 * Storage contract: the store as a whole. It answers while open, says which engine it is, and
 * stops answering once closed; closing twice is harmless (shutdown paths may both close).
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from './engines.js';

describeEachEngine('store', (engine, definition) => {
  it('answers ping while open and not once closed; closing twice is harmless', async () => {
    const { store } = engine();
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('says where its data lives and whether it outlives the process', async () => {
    const description = engine().store.describe();
    expect(description.location.length).toBeGreaterThan(0);
    expect(description.ephemeral, 'a database other connections share outlives the process').toBe(!definition.shared);
  });
});
