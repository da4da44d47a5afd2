import i18next from 'i18next';
import type { Envelope, ErrorDetail, FieldErrors } from '../../lib/http';

export type { Envelope } from '../../lib/http';
import { currentLanguage } from './i18n';
import { PATHS } from './paths';
import { clearSession, getSession } from './session';

export const UNAUTHENTICATED = 'Unauthenticated.';
/** Window event asking the router to navigate (detail: path), for code outside React. */
export const NAVIGATE_EVENT = 'portal:navigate';

/** A failed call. `code` is ERR_NETWORK when the server could not be reached (spec §7). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errors: Envelope<unknown>['errors'] = null,
    readonly code?: 'ERR_NETWORK',
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field errors of a 422, keyed by payload field. */
  get fields(): FieldErrors {
    return this.errors && typeof this.errors === 'object' && !('msg' in this.errors) ? (this.errors as FieldErrors) : {};
  }

  /** Field errors of a 422 with each field's messages as one text, as a form shows them under its fields. */
  get fieldTexts(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.fields).map(([name, messages]) => [name, messages.join(' ')]));
  }

  fieldError(...names: string[]): string | undefined {
    for (const name of names) {
      const messages = this.fields[name];
      if (messages?.[0]) return messages.join(' ');
    }
    return undefined;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/**
 * The text to show for a failure (spec §8): a string error as it is; the `{ msg, count }` form with the
 * count substituted; field errors joined; a network failure as its message.
 */
export function errorText(error: unknown): string {
  if (!(error instanceof ApiError)) return i18next.t('errors.generic');
  if (error.code === 'ERR_NETWORK') return error.message;
  const { errors } = error;
  if (typeof errors === 'string' && errors) return errors;
  if (errors && typeof errors === 'object' && 'msg' in errors) {
    const detail = errors as ErrorDetail;
    return detail.msg.replaceAll('{{count}}', String(detail.count ?? ''));
  }
  if (errors && typeof errors === 'object') {
    const joined = Object.values(errors as FieldErrors)
      .flat()
      .filter(Boolean)
      .join(' ');
    if (joined) return joined;
  }
  return error.message || i18next.t('errors.generic');
}

function timeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** What every call of the web app sends: the bearer token, the client's time zone and language, and the web app's mark. */
export function apiHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'x-timezone': timeZone(), 'x-requested-with': 'portal-web', 'x-lang': currentLanguage() };
  const session = getSession();
  if (session) headers.authorization = `Bearer ${session.user.token}`;
  return headers;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

/**
 * Every call of the web app (spec §7): bearer token, accept-JSON, client time zone, a header marking web
 * requests and the UI language. `Unauthenticated.` clears the stored user, which sends the visitor to login.
 */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...apiHeaders() };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let url = path;
  if (options.query) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query)) if (value !== undefined) params.set(name, String(value));
    url += `?${params.toString()}`;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  let body: Envelope<T> | null = null;
  try {
    body = (await response.json()) as Envelope<T>;
  } catch {
    body = null;
  }
  if (response.ok && body?.success) return body.data as T;
  const message = body?.message ?? (typeof body?.errors === 'string' ? body.errors : '') ?? '';
  if (response.status === 401 && (message === UNAUTHENTICATED || body?.errors === UNAUTHENTICATED)) {
    clearSession();
  } else if (response.status === 401 && path.includes('/safe-home')) {
    // Spec §7: any other 401 on the safe-home paths sends the user back to the map.
    window.dispatchEvent(new CustomEvent(NAVIGATE_EVENT, { detail: PATHS.liveMap }));
  }
  throw new ApiError(message || i18next.t('errors.generic'), response.status, body?.errors ?? null);
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body: body ?? {} }),
};
