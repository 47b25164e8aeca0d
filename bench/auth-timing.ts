/**
 * How long the authenticator takes to refuse an unknown key and a revoked key, interleaved so
 * drift affects both alike. SECURITY.md promises the two are indistinguishable; the unit test
 * (test/core/access/authenticator.test.ts) proves they take the same storage path, and this
 * measures what is left. Run with `npx tsx bench/auth-timing.ts`.
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { ManualClock } from '../src/core/clock.js';
import { createSilentLogger } from '../src/logger.js';
import { createApplication } from '../src/main.js';

const SAMPLES = 3_000;
const WARM_UP = 500;

const application = await createApplication(loadConfig({ DATABASE_URL: ':memory:', PORCH_NO_BOOTSTRAP: '1', LOG_LEVEL: 'silent' }), {
  clock: new ManualClock(),
  logger: createSilentLogger(),
});
const { core } = application;
const account = await core.accounts.createAccount({ email: 'timing@example.com', plan: 'expert', credits: 1 });
const created = await core.accounts.createKey({ accountId: account.id });
await core.accounts.revokeKey(created.key.id);
const revoked = created.plaintext;
const unknown = `mdi_${'x'.repeat(revoked.length - 4)}`;

async function refusalMicros(apiKey: string): Promise<number> {
  const start = performance.now();
  await core.authenticator.authenticate({ apiKey }).catch(() => undefined);
  return (performance.now() - start) * 1_000;
}

const times = { unknown: [] as number[], revoked: [] as number[] };
for (let sample = 0; sample < WARM_UP + SAMPLES; sample += 1) {
  const first = sample % 2 === 0 ? 'unknown' : 'revoked';
  const second = first === 'unknown' ? 'revoked' : 'unknown';
  const a = await refusalMicros(first === 'unknown' ? unknown : revoked);
  const b = await refusalMicros(second === 'unknown' ? unknown : revoked);
  if (sample < WARM_UP) continue;
  times[first].push(a);
  times[second].push(b);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

for (const kind of ['unknown', 'revoked'] as const) {
  const values = times[kind];
  console.log(
    `${kind.padEnd(8)} p25 ${quantile(values, 0.25).toFixed(1)} µs  p50 ${quantile(values, 0.5).toFixed(1)} µs  p75 ${quantile(values, 0.75).toFixed(1)} µs  (${values.length} samples)`,
  );
}
console.log(`median difference (revoked - unknown): ${(quantile(times.revoked, 0.5) - quantile(times.unknown, 0.5)).toFixed(1)} µs`);
await application.close();
