import { createDecipheriv, createECDH, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { importJWK, jwtVerify } from 'jose';

/**
 * A web push service on loopback (RFC 8030): it hands out subscriptions with their own keys, as a browser's
 * push service does, receives the application server's push requests, checks the VAPID authorization
 * (RFC 8292) and decrypts the aes128gcm payload with the subscription's private key (RFC 8291).
 * `failNext` answers the next requests with the given statuses; an unknown subscription gets 410 Gone.
 */
export interface ReceivedPush {
  subscriptionId: string;
  payload: string;
  ttl: number;
  /** The application server's VAPID public key, from the verified authorization. */
  vapidKey: string;
  location: string;
  /** The Topic header, when the sender gave one (a repeated send of one delivery carries the same). */
  topic: string | null;
}

const b64url = (buffer: Buffer) => buffer.toString('base64url');

function hkdf(ikm: Buffer, salt: Buffer, info: Buffer, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, length));
}

/** RFC 8291 §3-4 and RFC 8188: one record, as web push sends it. */
function decrypt(body: Buffer, userAgent: { privateKey: Buffer; publicKey: Buffer; authSecret: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20]!;
  const serverPublicKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(userAgent.privateKey);
  const sharedSecret = ecdh.computeSecret(serverPublicKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), userAgent.publicKey, serverPublicKey]);
  const ikm = hkdf(sharedSecret, userAgent.authSecret, keyInfo, 32);
  const contentKey = hkdf(ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12);
  const decipher = createDecipheriv('aes-128-gcm', contentKey, nonce);
  decipher.setAuthTag(ciphertext.subarray(-16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, -16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('the last record does not end with the delimiter 0x02');
  return padded.subarray(0, end).toString('utf8');
}

async function verifyVapid(authorization: string | null, audience: string): Promise<string> {
  const match = authorization?.match(/^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/);
  if (!match) throw new Error('no VAPID authorization');
  const [, token, key] = match;
  const point = Buffer.from(key!, 'base64url');
  const publicKey = await importJWK(
    { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) },
    'ES256',
  );
  const { payload } = await jwtVerify(token!, publicKey, { audience, algorithms: ['ES256'] });
  if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) throw new Error('VAPID subject missing');
  return key!;
}

export async function startPushService() {
  const subscriptions = new Map<string, { privateKey: Buffer; publicKey: Buffer; authSecret: Buffer }>();
  const received: ReceivedPush[] = [];
  const requests: Array<{ subscriptionId: string; status: number }> = [];
  const failures: number[] = [];

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const subscriptionId = url.pathname.match(/^\/push\/([\w-]+)$/)?.[1];
      const respond = (status: number, text = '', headers: Record<string, string> = {}) => {
        requests.push({ subscriptionId: subscriptionId ?? '', status });
        return new Response(text, { status, headers });
      };
      if (!subscriptionId || request.method !== 'POST') return respond(404, 'no such push resource');
      const userAgent = subscriptions.get(subscriptionId);
      if (!userAgent) return respond(410, 'subscription expired or unsubscribed');
      let vapidKey: string;
      try {
        vapidKey = await verifyVapid(request.headers.get('authorization'), url.origin);
      } catch (error) {
        return respond(403, `VAPID: ${(error as Error).message}`);
      }
      if (request.headers.get('content-encoding') !== 'aes128gcm') return respond(415, 'aes128gcm only');
      const ttl = Number(request.headers.get('ttl'));
      if (!Number.isInteger(ttl) || ttl < 0) return respond(400, 'TTL header required');
      const failure = failures.shift();
      if (failure !== undefined) return respond(failure, 'failing as asked');
      let payload: string;
      try {
        payload = decrypt(Buffer.from(await request.arrayBuffer()), userAgent);
      } catch (error) {
        return respond(400, `cannot decrypt: ${(error as Error).message}`);
      }
      const location = `${url.origin}/messages/${randomUUID()}`;
      received.push({ subscriptionId, payload, ttl, vapidKey, location, topic: request.headers.get('topic') });
      return respond(201, '', { location });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    received,
    requests,
    /** A new subscription as a browser would get it from this service (`PushSubscription.toJSON()`). */
    subscribe(): { endpoint: string; keys: { p256dh: string; auth: string } } {
      const ecdh = createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const id = randomUUID();
      const authSecret = randomBytes(16);
      subscriptions.set(id, { privateKey: ecdh.getPrivateKey(), publicKey, authSecret });
      return { endpoint: `${origin}/push/${id}`, keys: { p256dh: b64url(publicKey), auth: b64url(authSecret) } };
    },
    /** The browser unsubscribed: its endpoint answers 410 from now on. */
    expire(endpoint: string) {
      subscriptions.delete(endpoint.split('/').pop()!);
    },
    failNext(...statuses: number[]) {
      failures.push(...statuses);
    },
    close: () => server.stop(true),
  };
}
export type TestPushService = Awaited<ReturnType<typeof startPushService>>;
