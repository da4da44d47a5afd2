import { cellValue, type ExportDocument, type ExportValue, labelWithUnit, neutraliseFormula, usesDecimalComma } from './document';
import type { ExportChunk } from './render';

/** Rows per chunk: about 100 KiB of a trip log. */
const ROWS_PER_CHUNK = 1000;

/** A value as a CSV field's text: numbers with the language's decimal mark, text with formulas neutralised. */
export function csvField(value: ExportValue | null, decimalComma: boolean): string {
  if (value === null) return '';
  if (value.type === 'number') {
    const fixed = value.value.toFixed(value.decimals);
    return decimalComma ? fixed.replace('.', ',') : fixed;
  }
  return value.type === 'text' ? neutraliseFormula(value.value) : value.value;
}

/**
 * CSV as Excel opens it by double-click: UTF-8 with a byte-order mark, `;` between fields and a decimal comma
 * for Swedish and Norwegian (their Excel's list separator), `,` and a decimal point for English; RFC 4180
 * quoting. Layout: the title, the facts, a blank line, the table with its header row, a blank line, the
 * totals, then the notes after another blank line. Written a thousand rows at a time.
 */
export function* csvChunks(document: ExportDocument): Generator<ExportChunk> {
  const encoder = new TextEncoder();
  const comma = usesDecimalComma(document.language);
  const separator = comma ? ';' : ',';
  const quote = (field: string) => (/[";,\r\n]/.test(field) || /^\s|\s$/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
  const line = (fields: string[]) => `${fields.map(quote).join(separator)}\r\n`;
  const fact = ({ label, unit, value }: ExportDocument['facts'][number]) => line([labelWithUnit({ label, unit }), csvField(value, comma)]);

  let head = `\uFEFF${line([document.title])}`;
  for (const item of document.facts) head += fact(item);
  head += '\r\n';
  head += line(document.columns.map(labelWithUnit));
  yield { data: encoder.encode(head), rows: 0 };

  const { columns, rows } = document;
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    const end = Math.min(rows.length, start + ROWS_PER_CHUNK);
    let part = '';
    for (let index = start; index < end; index++) {
      const row = rows[index]!;
      part += line(columns.map((column, at) => csvField(cellValue(column, row[at] ?? null), comma)));
    }
    yield { data: encoder.encode(part), rows: end };
  }

  let tail = '\r\n';
  for (const item of document.totals) tail += fact(item);
  if (document.notes.length > 0) {
    tail += '\r\n';
    for (const note of document.notes) tail += line([neutraliseFormula(note)]);
  }
  yield { data: encoder.encode(tail), rows: rows.length };
}
