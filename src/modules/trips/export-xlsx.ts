import { strToU8, zipSync } from 'fflate';
import type { CellValue, TripLogDocument } from './export';

/**
 * The trip log as an Office Open XML workbook (ECMA-376, SpreadsheetML): one sheet written by hand and
 * zipped with fflate.
 *
 * Why not an xlsx library: what we write is one sheet of text, numbers, dates and times with a bold header,
 * which is a few hundred lines of well-specified XML. fflate (MIT, zero dependencies, ~8 kB, actively
 * maintained, already in the tree through pdfkit) does the zipping; the big writers (exceljs, SheetJS)
 * bring megabytes of code and, for SheetJS, an npm release that no longer gets fixes.
 *
 * Dates and times are real spreadsheet values (serial days with a date/time format), numbers are numbers,
 * text is inline strings (no shared-string table needed), so sums and filters work in Excel and LibreOffice.
 */

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
const STYLE = { normal: 0, bold: 1, date: 2, time: 3, integer: 4, decimal: 5, title: 6, boldDecimal: 7 } as const;

function cellXml(ref: string, value: CellValue, bold = false): string {
  switch (value.kind) {
    case 'number':
      return `<c r="${ref}" s="${bold ? STYLE.boldDecimal : value.decimals === 0 ? STYLE.integer : STYLE.decimal}"><v>${value.value}</v></c>`;
    case 'date':
      return `<c r="${ref}" s="${STYLE.date}"><v>${serialDay(value.value)}</v></c>`;
    case 'time': {
      const [hours, minutes] = value.value.split(':').map(Number) as [number, number];
      return `<c r="${ref}" s="${STYLE.time}"><v>${(hours * 60 + minutes) / 1440}</v></c>`;
    }
    case 'text':
      if (value.value === '') return '';
      return `<c r="${ref}" t="inlineStr"${bold ? ` s="${STYLE.bold}"` : ''}><is><t xml:space="preserve">${escapeXml(value.value)}</t></is></c>`;
  }
}

function sheetXml(document: TripLogDocument): { xml: string; headerRow: number; lastRow: number } {
  const rows: string[] = [];
  let rowNumber = 0;
  const row = (cells: Array<{ value: CellValue; bold?: boolean; style?: number }>) => {
    rowNumber += 1;
    const xml = cells
      .map((cell, index) => {
        const ref = `${columnName(index)}${rowNumber}`;
        if (cell.style !== undefined && cell.value.kind === 'text') {
          return `<c r="${ref}" t="inlineStr" s="${cell.style}"><is><t xml:space="preserve">${escapeXml(cell.value.value)}</t></is></c>`;
        }
        return cellXml(ref, cell.value, cell.bold);
      })
      .join('');
    rows.push(`<row r="${rowNumber}">${xml}</row>`);
  };
  const text = (value: string): CellValue => ({ kind: 'text', value });
  row([{ value: text(document.title), style: STYLE.title }]);
  for (const { label, value } of document.meta) row([{ value: text(label), bold: true }, { value }]);
  rowNumber += 1; // blank line
  row(document.columns.map((column) => ({ value: text(column.label), bold: true })));
  const headerRow = rowNumber;
  for (const values of document.rows) row(values.map((value) => ({ value })));
  const lastRow = rowNumber;
  rowNumber += 1;
  for (const { label, value } of document.totals) row([{ value: text(label), bold: true }, { value, bold: true }]);

  const lastColumn = columnName(document.columns.length - 1);
  const cols = document.columns
    .map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${Math.max(column.width, column.label.length * 0.9 + 2).toFixed(1)}" customWidth="1"/>`)
    .join('');
  const xml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    `<dimension ref="A1:${lastColumn}${rowNumber}"/>` +
    `<sheetViews><sheetView workbookViewId="0"><pane ySplit="${headerRow}" topLeftCell="A${headerRow + 1}" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>` +
    '<sheetFormatPr defaultRowHeight="15"/>' +
    `<cols>${cols}</cols>` +
    `<sheetData>${rows.join('')}</sheetData>` +
    `<autoFilter ref="A${headerRow}:${lastColumn}${lastRow}"/>` +
    '<pageMargins left="0.5" right="0.5" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
    '<pageSetup paperSize="9" orientation="landscape"/>' +
    '</worksheet>';
  return { xml, headerRow, lastRow };
}

const STYLES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<numFmts count="3"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/><numFmt numFmtId="165" formatCode="hh:mm"/><numFmt numFmtId="166" formatCode="0.0"/></numFmts>' +
  '<fonts count="3"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="14"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="8">' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="1" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
  '<xf numFmtId="166" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyNumberFormat="1"/>' +
  '</cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

/** A sheet name: at most 31 characters, none of []:*?/\ . */
function sheetName(title: string): string {
  return title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31).trim() || 'Trips';
}

export function tripLogXlsx(document: TripLogDocument): Uint8Array {
  const { xml: sheet, headerRow, lastRow } = sheetXml(document);
  const name = escapeXml(sheetName(document.title));
  const lastColumn = columnName(document.columns.length - 1);
  const created = document.generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const files: Record<string, string> = {
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
      `<dc:title>${escapeXml(`${document.title} – ${document.unitName}`)}</dc:title>` +
      `<dcterms:created xsi:type="dcterms:W3CDTF">${created}</dcterms:created>` +
      '</cp:coreProperties>',
    'docProps/app.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Fleet Portal</Application></Properties>',
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
    'xl/worksheets/sheet1.xml': sheet,
  };
  const entries: Record<string, Uint8Array> = {};
  for (const [path, content] of Object.entries(files)) entries[path] = strToU8(content);
  // A fixed modification time keeps the bytes of the same trips the same.
  return zipSync(entries, { level: 6, mtime: new Date(Date.UTC(2020, 0, 1)) });
}
