import ipaddr from 'ipaddr.js';
import { invalidInput } from '../domain/errors.ts';
import type { Environment } from '../domain/environments.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** What the operator decided about internal webhook targets (ALLOW_PRIVATE_WEBHOOK_URLS and its sandbox twin). */
export interface WebhookTargetRules {
  allowPrivateWebhookUrls: boolean;
  sandboxWebhooksPublicOnly: boolean;
}

/**
 * Whether an environment's webhooks may reach only public addresses: production always, unless the
 * operator allows internal receivers; the sandbox only when the operator says so (a hosted sandbox, where a
 * sandbox token must not make the server call the operator's own network), since a developer's sandbox
 * talks to their laptop.
 */
export function publicTargetsOnly(rules: WebhookTargetRules, environment: Environment): boolean {
  return environment === 'production' ? !rules.allowPrivateWebhookUrls : rules.sandboxWebhooksPublicOnly;
}

/**
 * A webhook URL a platform may give: absolute http(s), no embedded credentials (they would end up in
 * logs and attempt records), HTTPS in production where the payload carries real customers' data, and no
 * internal address where `publicOnly` (see publicTargetsOnly). Returns the normalized URL; throws a 400
 * naming `field`.
 */
export function checkWebhookUrl(value: string, environment: Environment, field: string, publicOnly: boolean): string {
  if (value.length > MAX_WEBHOOK_URL_LENGTH)
    throw invalidInput(field, `${field} must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, 'maxLength');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidInput(field, `${field} must be an absolute http(s) URL`, 'url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalidInput(field, `${field} must use http or https`, 'url');
  if (environment === 'production' && url.protocol !== 'https:')
    throw invalidInput(field, `${field} must use https in production`, 'https');
  if (url.username || url.password) throw invalidInput(field, `${field} must not carry credentials`, 'url');
  if (publicOnly && isInternalHost(url.hostname)) {
    throw invalidInput(field, `${field} must point at a public address`, 'publicAddress');
  }
  return url.href;
}

/**
 * Addresses a production webhook may not reach: anything but a public unicast address. That covers
 * loopback, private, link-local (cloud metadata services live there), carrier-grade NAT, unique-local,
 * multicast, reserved and unspecified ones, so a platform cannot point our server at the operator's own
 * internal services (server-side request forgery). IPv6 forms that carry an IPv4 address (IPv4-mapped
 * and -compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry, whatever the spelling:
 * `::ffff:127.0.0.1`, `::ffff:7f00:1` and `64:ff9b::7f00:1` are all loopback. ipaddr.js does the parsing
 * and the range tables.
 */
export function isInternalAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const v6 = address as ipaddr.IPv6;
  const carried = carriedIPv4(v6);
  if (carried.length > 0) return carried.some((v4) => v4.range() !== 'unicast');
  return v6.range() !== 'unicast';
}

/** The IPv4 addresses an IPv6 address carries in one of the standard embeddings; none for plain IPv6. */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const v4 = (at: number, xor = 0) =>
    new ipaddr.IPv4(bytes.slice(at, at + 4).map((b) => b ^ xor) as [number, number, number, number]);
  const leadingZeros = bytes.slice(0, 12).every((b) => b === 0);
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64)
      return [v4(12)];
    case '6to4': // 2002:AABB:CCDD::
      return [v4(2)];
    case 'teredo': // 2001:0:server:…:client (client obfuscated)
      return [v4(4), v4(12, 0xff)];
    default:
      // ::a.b.c.d, IPv4-compatible (deprecated, but a stack may still route it); :: and ::1 included.
      return leadingZeros ? [v4(12)] : [];
  }
}

/** An IP literal in an internal range, or a name that is plainly local. Names are resolved at delivery. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || isInternalAddress(host);
}
