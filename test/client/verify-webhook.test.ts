/** verifyWebhook on the receiving side: what it accepts and what it refuses, against signatures the server's signer makes. */
import { describe, expect, it } from 'vitest';
import { PorchWebhookError, verifyWebhook } from '../../src/client/index.js';
import { signatureHeader } from '../../src/core/webhooks/delivery-worker.js';
import { newWebhookSecret } from '../../src/core/webhooks/secrets.js';

const secret = newWebhookSecret();
const body = JSON.stringify({ type: 'run.completed', timestamp: '2026-06-01T12:00:00.000Z', data: { id: 'r1', status: 'completed' } });

function signed(at = Date.now(), secrets: string[] = [secret]) {
  return {
    'webhook-id': '0190f1c2-0000-7000-8000-000000000001',
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': signatureHeader(secrets, '0190f1c2-0000-7000-8000-000000000001', new Date(at), body),
  };
}

describe('verifyWebhook', () => {
  it('answers the event for a delivery signed with the secret, with headers as Node, Fetch or bytes give them', () => {
    const headers = signed();
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret)).toMatchObject({ type: 'run.completed' });
    const mixedCase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(body, mixedCase, secret)).toMatchObject({ data: { id: 'r1' } });
  });

  it('accepts either secret while a rotation signs with both', () => {
    const next = newWebhookSecret();
    const headers = signed(Date.now(), [next, secret]);
    expect(verifyWebhook(body, headers, secret)).toMatchObject({ type: 'run.completed' });
    expect(verifyWebhook(body, headers, next)).toMatchObject({ type: 'run.completed' });
  });

  it('refuses another secret, a changed body, a stale timestamp and missing headers with PorchWebhookError', () => {
    const headers = signed();
    expect(() => verifyWebhook(body, headers, newWebhookSecret())).toThrow(PorchWebhookError);
    expect(() => verifyWebhook(body.replace('completed', 'failed'), headers, secret)).toThrow(/does not verify/);
    expect(() => verifyWebhook(body, signed(Date.now() - 10 * 60_000), secret)).toThrow(/does not verify/);
    const { 'webhook-signature': _signature, ...unsigned } = headers;
    expect(() => verifyWebhook(body, unsigned, secret)).toThrow(/webhook-signature header is missing/);
    expect(() => verifyWebhook(body, headers, 'not-a-secret!')).toThrow(PorchWebhookError);
  });
});
