import type { Store } from '../db/store.js';
import type { Clock } from './clock.js';
import { toIsoTimestamp } from './views.js';

export const API_VERSION = '2026-05-05';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  database: 'ok' | 'unavailable';
  time: string;
}

export function createHealthService(store: Store, clock: Clock) {
  return {
    async check(): Promise<HealthReport> {
      const databaseOk = await store.ping();
      return {
        status: databaseOk ? 'ok' : 'degraded',
        version: API_VERSION,
        database: databaseOk ? 'ok' : 'unavailable',
        time: toIsoTimestamp(clock.now()),
      };
    },
  };
}
