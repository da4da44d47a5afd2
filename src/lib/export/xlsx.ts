import { strToU8, Zip, ZipDeflate } from 'fflate';
import { cellValue, type ExportDocument, type ExportValue, labelWithUnit } from './document';
import type { ExportChunk } from './render';

/**
 * The document as an Office Open XML workbook (ECMA-376, SpreadsheetML): one sheet written as XML and zipped
 * by fflate's streaming `Zip`, 500 rows at a time, so a long export leaves the server while it is written.
 *
 * Dates and times are real spreadsheet values (serial days with a date/time format), numbers are numbers,
 * text is inline strings (no shared-string table needed), so sums and filters work in Excel and LibreOffice.
 * Why this and not exceljs: README.md, "Export kit".
 */

const ROWS_PER_CHUNK = 500;
const FIXED_MTIME = new Date(Date.UTC(2020, 0, 1));

const escapeXml = (value: string) =>
  value
    // Characters XML 1.0 does not allow at all.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** Column letters: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  let n = index + 1;
  while (n > 0) {
    const rest = (n - 1) % 26;
    name = String.fromCharCode(65 + rest) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

/** Days since 1899-12-30 (the spreadsheet epoch, with Lotus' leap-year quirk already accounted for). */
function serialDay(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 86_400_000 + 25_569;
}

// Cell styles (cellXfs indexes in styles.xml).
const STYLE = { normal: 0, bold: 1, date: 2, time: 3, integer: 4, decimal: 5, title: 6, boldDecimal: 7, boldInteger: 8 } as const;

function textCell(ref: string, value: string, style: number): string {
  return `<c r="${ref}" t="inlineStr"${style ? ` s="${style}"` : ''}><is><t xml:space="preserve">${escapeXml(value)}</t></is></c>`;
}

function cellXml(ref: string, value: ExportValue | null, bold = false): string {
  if (value === null) return '';
  switch (value.type) {
    case 'number': {
      const style = value.decimals === 0 ? (bold ? STYLE.boldInteger : STYLE.integer) : bold ? STYLE.boldDecimal : STYLE.decimal;
      return `<c r="${ref}" s="${style}"><v>${value.value}</v></c>`;
    }
    case 'date':
      return `<c r="${ref}" s="${STYLE.date}"><v>${serialDay(value.value)}</v></c>`;
    case 'time': {
      const [hours, minutes] = value.value.split(':').map(Number) as [number, number];
      return `<c r="${ref}" s="${STYLE.time}"><v>${(hours * 60 + minutes) / 1440}</v></c>`;
    }
    case 'text':
      return value.value === '' ? '' : textCell(ref, value.value, bold ? STYLE.bold : STYLE.normal);
  }
}

/** Decimal formats beyond what the built-in ones cover: 0.0, 0.00 … (numFmt 166 + decimals). */
const decimalFormats = [1, 2, 3].map((decimals) => `<numFmt numFmtId="${165 + decimals}" formatCode="0.${'0'.repeat(decimals)}"/>`).join('');

const STYLES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  `<numFmts count="5"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/><numFmt numFmtId="165" formatCode="hh:mm"/>${decimalFormats}</numFmts>` +
  '<fonts count="3"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="14"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="9">' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="1" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
  '<xf numFmtId="166" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyNumberFormat="1"/>' +
  '<xf numFmtId="1" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyNumberFormat="1"/>' +
  '</cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

/** A sheet name: at most 31 characters, none of []:*?/\ . */
function sheetName(title: string): string {
  return title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31).trim() || 'Sheet1';
}

/** Where each block of the sheet lands: title on row 1, facts, a blank row, the header, rows, a blank row, totals, notes. */
function sheetLayout(document: ExportDocument) {
  const headerRow = 1 + document.facts.length + 2;
  const lastRow = headerRow + document.rows.length;
  return { headerRow, lastRow, totalsRow: lastRow + 2 };
}

function packageFiles(document: ExportDocument): Record<string, string> {
  const { headerRow, lastRow } = sheetLayout(document);
  const name = escapeXml(sheetName(document.title));
  const lastColumn = columnName(Math.max(0, document.columns.length - 1));
  const created = document.generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
      '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
      '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
      '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>' +
      '</Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
      '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>' +
      '</Relationships>',
    'docProps/core.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      'xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
      `<dc:title>${escapeXml(`${document.title} – ${document.subject}`)}</dc:title>` +
      `<dcterms:created xsi:type="dcterms:W3CDTF">${created}</dcterms:created>` +
      '</cp:coreProperties>',
    'docProps/app.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>${escapeXml(document.brand.name)}</Application></Properties>`,
    'xl/workbook.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      `<sheets><sheet name="${name}" sheetId="1" r:id="rId1"/></sheets>` +
      `<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'${name.replaceAll("'", "''")}'!$A$${headerRow}:$${lastColumn}$${lastRow}</definedName></definedNames>` +
      '</workbook>',
    'xl/_rels/workbook.xml.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '</Relationships>',
    'xl/styles.xml': STYLES_XML,
  };
}

export function* xlsxChunks(document: ExportDocument): Generator<ExportChunk> {
  const output: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    output.push(data);
  });
  const take = (): Uint8Array => {
    const data = output.length === 1 ? output[0]! : Buffer.concat(output);
    output.length = 0;
    return data;
  };
  // A fixed modification time keeps the bytes of the same document the same.
  const entry = (path: string) => {
    const file = new ZipDeflate(path, { level: 6 });
    file.mtime = FIXED_MTIME;
    zip.add(file);
    return file;
  };
  for (const [path, content] of Object.entries(packageFiles(document))) entry(path).push(strToU8(content), true);

  const { columns, rows } = document;
  const { headerRow, lastRow, totalsRow } = sheetLayout(document);
  const lastColumn = columnName(Math.max(0, columns.length - 1));
  const sheet = entry('xl/worksheets/sheet1.xml');
  const row = (number: number, cells: string) => `<row r="${number}">${cells}</row>`;
  const factRow = (number: number, fact: ExportDocument['facts'][number], bold: boolean) =>
    row(number, textCell(`A${number}`, labelWithUnit(fact), STYLE.bold) + cellXml(`B${number}`, fact.value, bold));

  const cols = columns
    .map((column, index) => {
      const width = Math.max(column.width, labelWithUnit(column).length * 0.9 + 2);
      return `<col min="${index + 1}" max="${index + 1}" width="${width.toFixed(1)}" customWidth="1"/>`;
    })
    .join('');
  let head =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    `<sheetViews><sheetView workbookViewId="0"><pane ySplit="${headerRow}" topLeftCell="A${headerRow + 1}" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>` +
    `<cols>${cols}</cols><sheetData>`;
  head += row(1, textCell('A1', document.title, STYLE.title));
  document.facts.forEach((fact, index) => {
    head += factRow(2 + index, fact, false);
  });
  head += row(headerRow, columns.map((column, index) => textCell(`${columnName(index)}${headerRow}`, labelWithUnit(column), STYLE.bold)).join(''));
  sheet.push(strToU8(head));
  yield { data: take(), rows: 0 };

  const letters = columns.map((_, index) => columnName(index));
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    const end = Math.min(rows.length, start + ROWS_PER_CHUNK);
    let part = '';
    for (let index = start; index < end; index++) {
      const number = headerRow + 1 + index;
      const values = rows[index]!;
      part += row(number, columns.map((column, at) => cellXml(`${letters[at]}${number}`, cellValue(column, values[at] ?? null))).join(''));
    }
    sheet.push(strToU8(part));
    yield { data: take(), rows: end };
  }

  let tail = '';
  document.totals.forEach((total, index) => {
    tail += factRow(totalsRow + index, total, true);
  });
  const notesRow = totalsRow + document.totals.length + 1;
  document.notes.forEach((note, index) => {
    tail += row(notesRow + index, textCell(`A${notesRow + index}`, note, STYLE.normal));
  });
  tail +=
    '</sheetData>' +
    `<autoFilter ref="A${headerRow}:${lastColumn}${lastRow}"/>` +
    '<pageMargins left="0.5" right="0.5" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
    '<pageSetup paperSize="9" orientation="landscape"/>' +
    '</worksheet>';
  sheet.push(strToU8(tail), true);
  zip.end();
  yield { data: take(), rows: rows.length };
}
