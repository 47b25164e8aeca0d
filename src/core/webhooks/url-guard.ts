/**
 * The SSRF guard for webhook endpoints. Porch sends requests where an account tells it to, from
 * inside the operator's network, so an endpoint must not reach that network: the host is resolved
 * and every address must be a public unicast one (ipaddr.js classifies it; IPv4-mapped IPv6 is
 * read as the IPv4 address it maps), and the URL must use https. Both rules are lifted for the
 * hosts the operator allow-lists (`webhooks.allow_hosts`), which may also use http.
 *
 * It runs when an endpoint is created or changed (400 naming the rule) and again before every
 * delivery, and the delivery connects to the address that was checked, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot reach an internal address.
 * A URL given for an endpoint is also held to what it is stored as: the URL as parsed, so what is
 * shown is what is called.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Cloud metadata services, named apart: the most valuable target of a server-side request. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** IANA's reserved ::/8, which holds the IPv4-compatible addresses (::/96). */
const RESERVED_IPV6_BLOCK = ipaddr.parseCIDR('::/8');

/** What each ipaddr.js range is called in a refusal. Anything but `unicast` is refused. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address (unique local)',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver, as connections use). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

export type UrlCheck =
  /** `address` is where to connect: the first address the host resolved to, all of them checked. */
  { ok: true; url: URL; address: ResolvedAddress } | { ok: false; rule: string; reason: 'invalid' | 'dns' | 'blocked_address' };

/** The host as the allow-list names it: lower case, IPv6 without brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'an address that is not valid';
  const parsed = ipaddr.process(address);
  const normal = parsed.toNormalizedString();
  if (METADATA_ADDRESSES.has(normal) || METADATA_ADDRESSES.has(parsed.toString())) return 'a cloud metadata address';
  const range = parsed.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a non-public address (${range})`;
  // ipaddr.js calls the rest of IANA's reserved ::/8 unicast: IPv4-compatible addresses
  // (`::7f00:1` is 127.0.0.1 written the deprecated way), which some stacks still route as IPv4.
  if (parsed.kind() === 'ipv6' && parsed.match(RESERVED_IPV6_BLOCK)) return RANGE_NAMES.reserved ?? 'a reserved address';
  return null;
}

/**
 * Checks a webhook URL: its syntax and scheme, then every address its host resolves to. The
 * result's `rule` is a sentence fragment for a 400 (`must use https`, `resolves to a private
 * address`), safe to show: it names the rule, not the network.
 */
export async function checkWebhookUrl(text: string, allowHosts: readonly string[], resolve: HostResolver = systemResolver): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, rule: 'must be an absolute URL', reason: 'invalid' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, rule: 'must use https', reason: 'invalid' };
  if (url.username !== '' || url.password !== '') return { ok: false, rule: 'must not hold credentials (user:password@)', reason: 'invalid' };
  if (url.hash !== '') return { ok: false, rule: 'must not have a fragment (#...)', reason: 'invalid' };
  const host = hostOf(url);
  const allowed = allowHosts.some((allowedHost) => allowedHost.toLowerCase() === host);
  if (!allowed && url.protocol !== 'https:') {
    return { ok: false, rule: 'must use https (http only for the hosts in webhooks.allow_hosts)', reason: 'invalid' };
  }

  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, rule: `has a host that does not resolve (${host})`, reason: 'dns' };
    }
  }
  const [first] = addresses;
  if (first === undefined) return { ok: false, rule: `has a host that does not resolve (${host})`, reason: 'dns' };
  if (!allowed) {
    for (const { address } of addresses) {
      const refused = refusedAddress(address);
      if (refused !== null)
        return {
          ok: false,
          rule: `resolves to ${refused}; only public addresses are allowed unless webhooks.allow_hosts lists the host`,
          reason: 'blocked_address',
        };
    }
  }
  return { ok: true, url, address: first };
}

/**
 * C0 controls, DEL and C1 controls. The URL parser drops tabs and newlines and percent-encodes the
 * rest, so a URL holding one would be called at another address than the text shown, and the text
 * would reach terminals and logs as it was typed (regression: an escape sequence was stored raw).
 */
const CONTROL_CHARACTER = /\p{Cc}/u;
const WHITESPACE = /\s/u;

/**
 * Checks a URL an account gives for an endpoint (on create and on change), for the rules of
 * `checkWebhookUrl` and these: no control character or whitespace anywhere, and no port 0. The
 * URL to store is the checked one's `href`: host lower-cased and in punycode, an IPv4 address in
 * dotted decimal, the default port left out, anything else percent-encoded. Endpoints stored
 * before these rules keep being delivered to, as `checkWebhookUrl` parses them at each attempt.
 */
export async function checkEndpointUrl(text: string, allowHosts: readonly string[], resolve: HostResolver = systemResolver): Promise<UrlCheck> {
  if (CONTROL_CHARACTER.test(text))
    return { ok: false, rule: 'must not hold control characters (a newline, a tab, an escape); percent-encode them if they belong in it', reason: 'invalid' };
  if (URL.canParse(text) && WHITESPACE.test(text))
    return { ok: false, rule: 'must not hold spaces or other whitespace; percent-encode them (a space is %20)', reason: 'invalid' };
  const check = await checkWebhookUrl(text, allowHosts, resolve);
  if (check.ok && check.url.port === '0') return { ok: false, rule: 'must not use port 0', reason: 'invalid' };
  return check;
}
