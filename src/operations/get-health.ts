import { z } from 'zod';
import { PorchError } from '../core/errors.js';
import { definePublicOperation } from './operation.js';
import { timestampSchema } from './schemas.js';

export const getHealth = definePublicOperation({
  name: 'get_health',
  title: 'Check API health',
  description: 'Reports whether the API and its database are up. Needs no API key and costs nothing; answers 503 when the database is unavailable.',
  method: 'GET',
  path: '/health',
  tag: 'Health',
  effect: 'read',
  successStatus: 200,
  output: z.object({
    status: z.enum(['ok', 'degraded']).describe('"ok" when every dependency answers.'),
    version: z.string().describe('API version (also in the X-API-Version header).'),
    database: z.enum(['ok', 'unavailable']).describe('Database status.'),
    time: timestampSchema.describe('Server time.'),
  }),
  async run(_input, { core }) {
    const report = await core.health.check();
    // Retry-After as every 503 of an unreachable database has it (the store's own default wait).
    if (report.database !== 'ok') throw new PorchError('SERVICE_UNAVAILABLE', 'The database is unavailable.', { retryAfterSeconds: 1 });
    return report;
  },
});
