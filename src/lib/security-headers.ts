import { Elysia } from 'elysia';

/**
 * The Content-Security-Policy the web app runs under: its own scripts only (no inline script, no eval),
 * workers from its own files or blob: URLs (MapLibre's worker, the cluster worker), map data from the
 * brands' online style host, and no framing by anyone.
 * Inline styles stay allowed: components and the map library set positions and sizes as style attributes.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https://tiles.openfreemap.org",
  "font-src 'self' data:",
  "connect-src 'self' https://tiles.openfreemap.org",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** HSTS is sent only when the portal is reached over HTTPS (it would lock plain-HTTP installations out). */
export function securityHeaderValues(publicUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  if (publicUrl.startsWith('https://')) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/** Adds the security headers to every response, whatever made it (a handler, an error, a file). */
export function securityHeaders(publicUrl: string) {
  const values = Object.entries(securityHeaderValues(publicUrl));
  // Headers set on arrival go out with every answer, also with a Response a handler or an early refusal made.
  return new Elysia({ name: 'security-headers' }).onRequest(({ set }) => {
    for (const [name, value] of values) set.headers[name] = value;
  });
}
