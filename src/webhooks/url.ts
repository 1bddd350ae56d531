import { BlockList, isIP } from 'node:net';
import { invalidInput } from '../domain/errors.ts';
import type { Environment } from '../store/schema.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * A webhook URL a platform may give: absolute http(s), no embedded credentials (they would end up in
 * logs and attempt records), HTTPS in production where the payload carries real customers' data, and in
 * production no internal address unless the operator allows it (ALLOW_PRIVATE_WEBHOOK_URLS).
 * Returns the normalized URL; throws a 400 naming `field`.
 */
export function checkWebhookUrl(value: string, environment: Environment, field: string, allowInternal = false): string {
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
  if (environment === 'production' && !allowInternal && isInternalHost(url.hostname)) {
    throw invalidInput(field, `${field} must point at a public address in production`, 'publicAddress');
  }
  return url.href;
}

/**
 * Addresses a production webhook may not reach: loopback, private, link-local (cloud metadata services
 * live there), carrier-grade NAT, unique-local and unspecified ones. A platform could otherwise point
 * our server at the operator's own internal services (server-side request forgery).
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

export function isInternalAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return INTERNAL.check(ip, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? INTERNAL.check(mapped[1]!, 'ipv4') : INTERNAL.check(ip, 'ipv6');
}

/** An IP literal in an internal range, or a name that is plainly local. Names are resolved at delivery. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || isInternalAddress(host);
}
