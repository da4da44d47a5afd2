import { Elysia } from 'elysia';
import { AppError, errorEnvelope, JsonEnvelope, validationError } from './http';
import { type Language, resolveLanguage } from './i18n';
import type { Logger } from './log';

/** The caller's language: an explicit X-Lang header, else Accept-Language, else sv. */
export function requestLanguage(headers: Headers | Record<string, string | undefined>): Language {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  return resolveLanguage(get('x-lang'), get('accept-language'));
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/**
 * Global error mapping for the API: every failure leaves as the `{ success, data, errors }` envelope,
 * translated into the caller's language, never with a stack trace.
 */
export function apiErrors(log: Logger) {
  return new Elysia({ name: 'api-errors' }).onError({ as: 'global' }, ({ code, error, request }) => {
    const language = requestLanguage(request.headers);
    if (error instanceof AppError) return json(error.status, errorEnvelope(error, language));
    if (code === 'VALIDATION') {
      const issues = (error as unknown as { all?: Array<{ path?: string; message?: string }> }).all ?? [];
      return json(422, errorEnvelope(validationError(issues), language));
    }
    if (code === 'NOT_FOUND') return json(404, errorEnvelope(new AppError(404, 'errors.routeNotFound'), language));
    if (code === 'PARSE') return json(400, errorEnvelope(new AppError(400, 'errors.malformedBody'), language));
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

