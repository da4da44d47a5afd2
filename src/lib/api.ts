import { Elysia } from 'elysia';
import { AppError, errorEnvelope, validationError } from './http';
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
