import { csvChunks } from './csv';
import type { ExportDocument } from './document';
import { EXPORT_CONTENT_TYPES, type ExportFormat } from './formats';
import { pdfChunks } from './pdf';
import { xlsxChunks } from './xlsx';

/** A piece of a file as it is written, and how many of the document's rows are in the file so far. */
export interface ExportChunk {
  data: Uint8Array;
  rows: number;
}

/** The file of a document, piece by piece. */
export function renderExport(document: ExportDocument, format: ExportFormat): AsyncIterable<ExportChunk> | Iterable<ExportChunk> {
  if (format === 'csv') return csvChunks(document);
  if (format === 'xlsx') return xlsxChunks(document);
  return pdfChunks(document);
}

/** The whole file in memory (e-mail attachments, tests). */
export async function renderExportBytes(document: ExportDocument, format: ExportFormat): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of renderExport(document, format)) parts.push(chunk.data);
  return Buffer.concat(parts);
}

/** Files up to this size are written whole before the answer starts, and sent with their exact length. */
const WHOLE_UP_TO_BYTES = 64 * 1024;

/**
 * A document as an HTTP download. A small file goes out whole with its Content-Length. A larger one is sent
 * as it is written (chunked, pulled as the client reads, so a slow client holds the writer back rather than
 * the server holding the file), with `X-Estimated-Length`: the size the bytes written so far predict for all
 * rows, for the web app's progress bar.
 */
export async function exportResponse(document: ExportDocument, format: ExportFormat, fileName: string): Promise<Response> {
  const iterator = (async function* () {
    for await (const chunk of renderExport(document, format)) {
      yield chunk;
      // The CSV and XLSX writers never wait on their own: give the server a turn to send what is written.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const ahead: Uint8Array[] = [];
  let aheadBytes = 0;
  let rowsWritten = 0;
  let done = false;
  while (aheadBytes <= WHOLE_UP_TO_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    ahead.push(next.value.data);
    aheadBytes += next.value.data.byteLength;
    rowsWritten = next.value.rows;
  }
  const name = fileName.replace(/["\\\r\n]/g, '');
  const headers = new Headers({
    'content-type': EXPORT_CONTENT_TYPES[format],
    'content-disposition': `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  });
  if (done) {
    headers.set('content-length', String(aheadBytes));
    return new Response(Buffer.concat(ahead), { headers });
  }
  const total = document.rows.length;
  const estimate = rowsWritten > 0 ? Math.round((aheadBytes * total) / rowsWritten) : aheadBytes * 2;
  headers.set('x-estimated-length', String(Math.max(estimate, aheadBytes)));
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const first = ahead.shift();
        if (first) {
          controller.enqueue(first);
          return;
        }
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value.data);
      },
      async cancel() {
        await iterator.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { headers });
}
