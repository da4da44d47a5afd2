import i18next from 'i18next';
import { ApiError, apiHeaders, type Envelope } from './api';

/**
 * Files from the API (exports, PDFs) saved under the name the server gives. The API needs the bearer token,
 * so a plain link cannot fetch them; the body is read as it arrives and each piece reported, so a screen can
 * show how far a long export has come. The total is the Content-Length when the server knows it, else its
 * `X-Estimated-Length` for a file it streams while writing it (then `estimated` is true).
 */

export interface DownloadProgress {
  received: number;
  total: number | null;
  estimated: boolean;
}

export interface DownloadOptions {
  /** Used when the answer names no file. */
  fallbackName: string;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
}

/** The name in Content-Disposition (the UTF-8 form first), else the fallback. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  if (encoded) return decodeURIComponent(encoded);
  return /filename="([^"]+)"/i.exec(disposition ?? '')?.[1] ?? fallback;
}

/** Throws the API's error for a failed file request, as the API client does for JSON ones. */
export async function failed(response: Response): Promise<never> {
  let body: Envelope<unknown> | null = null;
  try {
    body = (await response.json()) as Envelope<unknown>;
  } catch {
    body = null;
  }
  const message = body?.message || (typeof body?.errors === 'string' ? body.errors : '');
  throw new ApiError(message || i18next.t('errors.generic'), response.status, body?.errors ?? null);
}

/** Fetches a file, reporting progress, and hands it to the browser as a download. Resolves with the file's name. */
export async function downloadFile(path: string, options: DownloadOptions): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, { headers: apiHeaders(), signal: options.signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  if (!response.ok) await failed(response);
  const name = fileNameOf(response.headers.get('content-disposition'), options.fallbackName);
  const exact = Number(response.headers.get('content-length'));
  const estimate = Number(response.headers.get('x-estimated-length'));
  const total = exact > 0 ? exact : estimate > 0 ? estimate : null;
  const estimated = !(exact > 0) && total !== null;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  options.onProgress?.({ received, total, estimated });
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      received += value.byteLength;
      options.onProgress?.({ received, total: total === null ? null : Math.max(total, received), estimated });
    }
  }
  const url = URL.createObjectURL(new Blob(parts, { type: response.headers.get('content-type') ?? 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.dataset.testid = 'download-link';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
