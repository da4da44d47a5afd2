import { Elysia } from 'elysia';
import { AppError, errorEnvelope, JsonEnvelope, validationError } from './http';
import { databaseRefusal } from './db/errors';
import { hasMessage, type Language, resolveLanguage } from './i18n';
import type { Logger } from './log';

/** The caller's language: an explicit X-Lang header, else Accept-Language, else sv. */
export function requestLanguage(headers: Headers | Record<string, string | undefined>): Language {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  return resolveLanguage(get('x-lang'), get('accept-language'));
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
  });
}

/** Request bodies: JSON and forms up to 1 MB, picture uploads (multipart) their 1 MB plus the form's overhead. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const UPLOAD_BODY_LIMIT_BYTES = BODY_LIMIT_BYTES + 64 * 1024;
/** No payload of ours nests deeper than a few levels or holds more than 10,000 items (a stock batch). */
export const JSON_MAX_DEPTH = 16;
export const JSON_MAX_ELEMENTS = 50_000;
/** The server's own hard cap (Bun refuses larger bodies before any handler runs). */
export const SERVER_MAX_BODY_BYTES = 2 * UPLOAD_BODY_LIMIT_BYTES;

function bodyLimitFor(contentType: string | null): number {
  return contentType?.toLowerCase().startsWith('multipart/form-data') ? UPLOAD_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

const tooLarge = (limit: number) => new AppError(413, 'errors.bodyTooLarge', { params: { kb: Math.round(limit / 1024) } });

/** Reads a body as text, stopping as soon as it passes `limit` bytes (a chunked body has no length to check first). */
async function readCapped(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * One pass over JSON text, before it is parsed: refuses nesting deeper than JSON_MAX_DEPTH and more than
 * JSON_MAX_ELEMENTS values. Elysia's validation error pretty-prints the whole value (cost quadratic in depth),
 * so a deep body must never reach validation.
 */
export function checkJsonShape(text: string): AppError | null {
  let depth = 0;
  let elements = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > JSON_MAX_DEPTH) return new AppError(422, 'errors.bodyTooDeep', { params: { n: JSON_MAX_DEPTH } });
      elements++;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44) elements++;
    if (elements > JSON_MAX_ELEMENTS) return new AppError(422, 'errors.bodyTooManyElements', { params: { n: JSON_MAX_ELEMENTS } });
  }
  return null;
}

/**
 * C0 control characters (other than tab, line feed and carriage return) and DEL: PostgreSQL refuses NUL in text,
 * and none of them belongs in a name, a label or a search.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** The first field (dotted path) holding a string with a control character, or null. Linear in the input. */
export function fieldWithControlCharacter(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return CONTROL_CHARACTER.test(value) ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = fieldWithControlCharacter(value[i], path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
    return null;
  }
  const prototype = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  // Plain objects only (parsed queries have no prototype); files and dates hold no text of the caller's.
  if (value && (prototype === Object.prototype || prototype === null)) {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (CONTROL_CHARACTER.test(key)) return field;
      const found = fieldWithControlCharacter(item, field);
      if (found) return found;
    }
  }
  return null;
}

/** A multipart form as a plain object (repeated fields become arrays); text fields are never parsed as JSON. */
async function parseForm(request: Request): Promise<Record<string, unknown>> {
  const form = await request.formData();
  const body: Record<string, unknown> = Object.create(null);
  form.forEach((value, key) => {
    const previous = body[key];
    body[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  });
  return { ...body };
}

/**
 * Limits every request before any work is done on it: the body's size (by Content-Length, and while reading a
 * chunked one), JSON nesting and size before parsing, and control characters in every text of body, query and path
 * (a translated 422 naming the field). Answers in milliseconds whatever the body.
 */
export function requestLimits() {
  return new Elysia({ name: 'request-limits' })
    .onRequest(({ request }) => {
      const declared = request.headers.get('content-length');
      const limit = bodyLimitFor(request.headers.get('content-type'));
      if (declared !== null && Number(declared) > limit) {
        return json(413, errorEnvelope(tooLarge(limit), requestLanguage(request.headers)), { connection: 'close' });
      }
    })
    .onParse({ as: 'global' }, async ({ request }, contentType) => {
      const type = contentType.toLowerCase();
      if (type === 'multipart/form-data') {
        const length = Number(request.headers.get('content-length') ?? Number.NaN);
        // Without a declared length the form is read only up to Bun's hard cap (SERVER_MAX_BODY_BYTES).
        if (length > UPLOAD_BODY_LIMIT_BYTES) throw tooLarge(UPLOAD_BODY_LIMIT_BYTES);
        return parseForm(request);
      }
      if (type !== 'application/json' && type !== 'text/plain' && type !== 'application/x-www-form-urlencoded') return;
      const text = await readCapped(request, BODY_LIMIT_BYTES);
      if (type === 'text/plain') return text;
      if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
      if (text.trim() === '') return {};
      const refused = checkJsonShape(text);
      if (refused) throw refused;
      return JSON.parse(text);
    })
    .onTransform({ as: 'global' }, ({ body, query, params }) => {
      const field =
        fieldWithControlCharacter(params ?? {}) ??
        fieldWithControlCharacter(query ?? {}) ??
        (body instanceof Blob || ArrayBuffer.isView(body) ? null : fieldWithControlCharacter(body ?? {}));
      if (field) throw new AppError(422, 'validation.failed', { fields: { [field]: ['validation.controlCharacter'] } });
    });
}

/**
 * Global error mapping for the API: every failure leaves as the `{ success, data, errors }` envelope,
 * translated into the caller's language, never with a stack trace.
 */
export function apiErrors(log: Logger) {
  return new Elysia({ name: 'api-errors' }).onError({ as: 'global' }, ({ code, error, request }) => {
    const language = requestLanguage(request.headers);
    if (error instanceof AppError) return json(error.status, errorEnvelope(error, language), error.headers);
    if (code === 'VALIDATION') {
      const issues = (error as unknown as { all?: Array<{ path?: string; message?: string }> }).all ?? [];
      return json(422, errorEnvelope(validationError(issues), language));
    }
    const refusal = databaseRefusal(error);
    if (refusal && hasMessage(refusal.key)) {
      return json(422, errorEnvelope(new AppError(422, 'validation.failed', { fields: { [refusal.field]: [refusal.key] } }), language));
    }
    if (code === 'NOT_FOUND') return json(404, errorEnvelope(new AppError(404, 'errors.routeNotFound'), language));
    if (code === 'PARSE') {
      // Our own parser's refusals (too large, too deep) arrive wrapped in Elysia's ParseError.
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof AppError) return json(cause.status, errorEnvelope(cause, language));
      return json(400, errorEnvelope(new AppError(400, 'errors.malformedBody'), language));
    }
    log.error('unhandled error', {
      path: new URL(request.url).pathname,
      error: error instanceof Error ? error.stack : String(error),
    });
    return json(500, errorEnvelope(new AppError(500, 'errors.generic'), language));
  });
}

/** JSON bodies from this size on leave compressed when the caller accepts it (smaller ones are not worth it). */
const COMPRESS_FROM_BYTES = 16 * 1024;

/**
 * Compresses large JSON answers (a big fleet's unit list is megabytes of repetitive JSON, 20–70× smaller
 * compressed): zstd when the caller accepts it, else gzip; both cost a few milliseconds per megabyte.
 */
export function apiCompression() {
  return new Elysia({ name: 'api-compression' }).mapResponse({ as: 'global' }, ({ responseValue, request, set }) => {
    if (typeof responseValue !== 'object' || responseValue === null || responseValue instanceof Response) return;
    if (responseValue instanceof Blob || responseValue instanceof ArrayBuffer || ArrayBuffer.isView(responseValue)) return;
    // JSON written already (okJson) goes out as it is; anything else small is left to Elysia.
    const written = responseValue instanceof JsonEnvelope ? responseValue.text : null;
    const accepted = request.headers.get('accept-encoding') ?? '';
    const encoding = /\bzstd\b/.test(accepted) ? 'zstd' : /\bgzip\b/.test(accepted) ? 'gzip' : null;
    if (!encoding && written === null) return;
    const body = written ?? JSON.stringify(responseValue);
    const compress = encoding !== null && body.length >= COMPRESS_FROM_BYTES;
    if (!compress && written === null) return; // Elysia sends small ones as usual
    const headers = new Headers();
    for (const [name, value] of Object.entries(set.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one));
    }
    headers.set('content-type', 'application/json; charset=utf-8');
    const status = typeof set.status === 'number' ? set.status : 200;
    if (!compress) return new Response(body, { status, headers });
    headers.set('content-encoding', encoding);
    headers.set('vary', 'accept-encoding');
    const started = performance.now();
    const compressed: Uint8Array<ArrayBuffer> = encoding === 'zstd' ? new Uint8Array(Bun.zstdCompressSync(body, { level: 3 })) : Bun.gzipSync(body, { level: 4 });
    if (headers.has('server-timing')) headers.append('server-timing', `compress;dur=${(performance.now() - started).toFixed(1)}`);
    return new Response(compressed, { status, headers });
  });
}


/**
 * The caller's address for rate limits and lockouts. Behind a reverse proxy (TRUST_PROXY) it is the last
 * X-Forwarded-For entry, the one the proxy itself appended; earlier entries are whatever the client claimed.
 */
export function clientAddress(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  return server?.requestIP(request)?.address ?? 'unknown';
}
