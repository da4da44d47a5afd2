import i18next from 'i18next';
import { ApiError, apiHeaders } from './api';
import { downloadFile, failed } from './download';

/** File requests beside the JSON API client: object URLs for pictures and PDFs, downloads under the server's name. */

/** A file the API answers (PDF, picture) as an object URL; the caller revokes it. */
export async function fetchObjectUrl(path: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, { headers: apiHeaders() });
  } catch {
    throw new ApiError(i18next.t('errors.network'), 0, null, 'ERR_NETWORK');
  }
  if (!response.ok) await failed(response);
  return URL.createObjectURL(await response.blob());
}

/** Downloads a file from the API under the name the server gives it (no progress shown: small files). */
export async function download(path: string, fallbackName: string): Promise<void> {
  await downloadFile(path, { fallbackName });
}
