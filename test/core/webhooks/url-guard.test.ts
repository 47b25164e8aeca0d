/** The SSRF guard's rules on resolved addresses, with a resolver the test controls. */
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, type HostResolver, refusedAddress } from '../../../src/core/webhooks/url-guard.js';

const resolvesTo =
  (...addresses: string[]): HostResolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('checkWebhookUrl', () => {
  it('refuses a name when any of its addresses is internal, not only the first', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com/x', [], resolvesTo('93.184.215.14', '10.0.0.7'));
    expect(check).toMatchObject({ ok: false, reason: 'blocked_address', rule: expect.stringMatching(/^resolves to a private address/) });
  });

  it('answers the checked address to connect to, so a second lookup cannot change it', async () => {
    const check = await checkWebhookUrl('https://hooks.example.com/x', [], resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'));
    expect(check).toMatchObject({ ok: true, address: { address: '93.184.215.14', family: 4 } });
  });

  it('lets an allow-listed host through on any address and over http', async () => {
    expect(await checkWebhookUrl('http://hooks.internal:8080/x', ['HOOKS.internal'], resolvesTo('10.0.0.7'))).toMatchObject({ ok: true });
    expect(await checkWebhookUrl('http://hooks.internal:8080/x', [], resolvesTo('93.184.215.14'))).toMatchObject({
      ok: false,
      rule: 'must use https (http only for the hosts in webhooks.allow_hosts)',
    });
  });

  it('names a host that does not resolve', async () => {
    const failing: HostResolver = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkWebhookUrl('https://nowhere.invalid/x', [], failing)).toMatchObject({
      ok: false,
      reason: 'dns',
      rule: 'has a host that does not resolve (nowhere.invalid)',
    });
  });
});

describe('refusedAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['172.16.5.4', 'a private address'],
    ['100.127.255.255', 'a carrier-grade NAT address (100.64.0.0/10)'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fe80::1', 'a link-local address'],
    ['::', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    // IPv4-compatible IPv6 (::/96, in IANA's reserved ::/8): 127.0.0.1, 10.0.0.1 and the metadata address (regression: allowed).
    ['::7f00:1', 'a reserved address'],
    ['::a00:1', 'a reserved address'],
    ['::a9fe:a9fe', 'a reserved address'],
    ['::1:0:0:1', 'a reserved address'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusedAddress(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });
});
