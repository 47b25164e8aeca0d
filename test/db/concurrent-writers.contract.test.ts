/**
 * Storage contract, through core: concurrent updates of one resource from two processes each get
 * their own version and none is refused (docs/versions-and-labels.md), on every engine. The store
 * refuses a write whose base version is stale; core reads afresh and retries (write-retry.ts).
 */
import { expect, it } from 'vitest';
import { createLifecycleService } from '../../src/core/catalog/lifecycle.js';
import { systemClock } from '../../src/core/clock.js';
import { createContextCardService } from '../../src/core/context-cards/context-cards.js';
import { DEFAULT_QUOTAS } from '../../src/core/quotas/quotas.js';
import { describeEachEngine } from './engines.js';
import { createAccount } from './fixtures.js';

const WRITERS = 20;
const NO_MODELS = { has: () => false, list: () => [] };

describeEachEngine('concurrent writers', (engine, definition) => {
  it(`gives each of ${WRITERS} concurrent updates of a composition its own version (regression: PostgreSQL refused some with 409)`, async () => {
    const opened = engine();
    // Two processes where the database is shared; an in-memory database has only the one.
    const stores = definition.shared ? [opened.store, await opened.openAnother()] : [opened.store];
    const [first] = stores.map((store) => createLifecycleService(store, systemClock, DEFAULT_QUOTAS, NO_MODELS, 30));
    const { account } = await createAccount(opened.store);
    const created = await first?.create(null, 'composition', account.id, { name: 'Notes', description: '', tags: [], variables: [], template: 'Version 1' });
    const services = stores.map((store) => createLifecycleService(store, systemClock, DEFAULT_QUOTAS, NO_MODELS, 30));
    const updates = await Promise.all(
      Array.from({ length: WRITERS }, (_, index) =>
        services[index % services.length]?.update(null, 'composition', account.id, created?.id ?? '', { template: `Edit ${index}` }),
      ),
    );
    expect(updates.map((update) => update?.version).sort((left, right) => (left ?? 0) - (right ?? 0))).toEqual(
      Array.from({ length: WRITERS }, (_, index) => index + 2),
    );
  });

  it(`gives each of ${WRITERS} concurrent updates of a context card its own version`, async () => {
    const opened = engine();
    const stores = definition.shared ? [opened.store, await opened.openAnother()] : [opened.store];
    const services = stores.map((store) => createContextCardService(store, systemClock, DEFAULT_QUOTAS));
    const { account } = await createAccount(opened.store);
    const card = await services[0]?.create(account.id, { title: 'Card', content: 'Version 1' });
    const updates = await Promise.all(
      Array.from({ length: WRITERS }, (_, index) => services[index % services.length]?.update(account.id, card?.id ?? '', { content: `Edit ${index}` })),
    );
    expect(updates.map((update) => update?.version).sort((left, right) => (left ?? 0) - (right ?? 0))).toEqual(
      Array.from({ length: WRITERS }, (_, index) => index + 2),
    );
  });
});
