import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { translate } from '../../lib/i18n';
import type { PdfBrand } from '../units/pdf';
import type { CellValue, TripLogDocument } from './export';

/**
 * The trip log as PDF: A4 landscape, the brand's logo and contact details on the first page, the journal's
 * details (registration number, period, odometer at its start and end), the trips as a table whose header
 * repeats on every page, the totals, and page numbers. Texts in the reader's language.
 */

const MARGIN = 36;
const PAGE = { width: 841.89, height: 595.28 };
const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
const FONT_SIZE = 7.5;
const HEADER_FONT_SIZE = 7.5;
const CELL_PAD = 3;
const MAX_LINES = 3;

function locale(language: TripLogDocument['language']): string {
  return language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
}

function formatValue(value: CellValue, language: TripLogDocument['language']): string {
  if (value.kind === 'number') {
    return new Intl.NumberFormat(locale(language), { minimumFractionDigits: value.decimals, maximumFractionDigits: value.decimals }).format(value.value);
  }
  return value.value;
}

/** A light tint of the brand colour for the table header. */
function tint(hex: string, amount: number): string {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!match) return '#e8eef7';
  const value = Number.parseInt(match[1]!, 16);
  const channel = (shift: number) => Math.round(((value >> shift) & 0xff) + (255 - ((value >> shift) & 0xff)) * amount);
  return `#${[16, 8, 0].map((shift) => channel(shift).toString(16).padStart(2, '0')).join('')}`;
}

export async function tripLogPdf(document: TripLogDocument, brand: PdfBrand): Promise<Uint8Array> {
  const t = (key: string, params?: Record<string, string | number>) => translate(document.language, key, params);
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: `${document.title} – ${document.unitName}`, Author: brand.name, Creator: brand.name },
  });
  const chunks: Uint8Array[] = [];
  doc.on('data', (chunk: Uint8Array) => chunks.push(chunk));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  // --- Brand header, title and the journal's details -----------------------------------------------
  let logo = false;
  if (brand.logoSvg) {
    try {
      SVGtoPDF(doc, brand.logoSvg, MARGIN, MARGIN - 8, { height: 30, preserveAspectRatio: 'xMinYMin meet' });
      logo = true;
    } catch {
      logo = false;
    }
  }
  if (!logo) doc.font('Helvetica-Bold').fontSize(15).fillColor(brand.primaryColor).text(brand.name, MARGIN, MARGIN - 4, { lineBreak: false });
  doc
    .font('Helvetica')
    .fontSize(7.5)
    .fillColor('#555555')
    .text([brand.name, brand.contactAddress, [brand.contactPhone, brand.contactEmail].filter(Boolean).join(' · ')].filter(Boolean).join('\n'), MARGIN + 400, MARGIN - 8, {
      width: CONTENT_WIDTH - 400,
      align: 'right',
    });
  doc.moveTo(MARGIN, MARGIN + 28).lineTo(PAGE.width - MARGIN, MARGIN + 28).lineWidth(1.2).strokeColor(brand.primaryColor).stroke();
  doc.font('Helvetica-Bold').fontSize(16).fillColor('#111111').text(document.title, MARGIN, MARGIN + 38, { width: CONTENT_WIDTH });
  const generated = new Intl.DateTimeFormat(locale(document.language), { dateStyle: 'short', timeStyle: 'short', timeZone: document.timeZone }).format(
    document.generatedAt,
  );
  doc.font('Helvetica').fontSize(8).fillColor('#555555').text(`${t('pdf.generated')}: ${generated}`, { width: CONTENT_WIDTH });
  doc.moveDown(0.5);
  const metaTop = doc.y;
  const half = Math.ceil(document.meta.length / 2);
  const columnWidth = CONTENT_WIDTH / 2;
  let metaBottom = metaTop;
  document.meta.forEach(({ label, value }, index) => {
    const column = index < half ? 0 : 1;
    const row = index < half ? index : index - half;
    const x = MARGIN + column * columnWidth;
    const y = metaTop + row * 13;
    doc.font('Helvetica').fontSize(9).fillColor('#555555').text(label, x, y, { width: 190, lineBreak: false });
    doc.font('Helvetica-Bold').fontSize(9).fillColor('#111111').text(formatValue(value, document.language) || '–', x + 195, y, { width: columnWidth - 200, lineBreak: false });
    metaBottom = Math.max(metaBottom, y + 13);
  });
  doc.y = metaBottom + 10;

  // --- The trips ------------------------------------------------------------------------------------
  const totalWeight = document.columns.reduce((sum, column) => sum + column.width, 0);
  const widths = document.columns.map((column) => (column.width / totalWeight) * CONTENT_WIDTH);
  const lefts = widths.map((_, index) => MARGIN + widths.slice(0, index).reduce((sum, width) => sum + width, 0));
  const numeric = document.columns.map((_, index) => document.rows[0]?.[index]?.kind === 'number');
  const bottomLimit = PAGE.height - MARGIN - 14;
  const headerFill = tint(brand.primaryColor, 0.85);

  const tableHeader = () => {
    doc.font('Helvetica-Bold').fontSize(HEADER_FONT_SIZE);
    const height = Math.max(...document.columns.map((column, index) => doc.heightOfString(column.label, { width: widths[index]! - 2 * CELL_PAD }))) + 2 * CELL_PAD;
    const top = doc.y;
    doc.rect(MARGIN, top, CONTENT_WIDTH, height).fill(headerFill);
    doc.fillColor('#111111');
    document.columns.forEach((column, index) => {
      doc.text(column.label, lefts[index]! + CELL_PAD, top + CELL_PAD, { width: widths[index]! - 2 * CELL_PAD, align: numeric[index] ? 'right' : 'left' });
    });
    doc.y = top + height;
  };

  doc.font('Helvetica').fontSize(FONT_SIZE);
  const lineHeight = doc.currentLineHeight(true);
  tableHeader();
  document.rows.forEach((row, rowIndex) => {
    doc.font('Helvetica').fontSize(FONT_SIZE);
    const texts = row.map((value) => formatValue(value, document.language));
    const lines = Math.min(
      MAX_LINES,
      Math.max(
        1,
        ...texts.map((value, index) => {
          const width = widths[index]! - 2 * CELL_PAD;
          // Measuring the wrapped height is costly; most cells fit on one line, which the width alone tells.
          if (!value || doc.widthOfString(value) <= width) return 1;
          return Math.ceil(doc.heightOfString(value, { width }) / lineHeight - 0.01);
        }),
      ),
    );
    const height = lines * lineHeight + 2 * CELL_PAD;
    if (doc.y + height > bottomLimit) {
      doc.addPage();
      doc.y = MARGIN;
      tableHeader();
      doc.font('Helvetica').fontSize(FONT_SIZE);
    }
    const top = doc.y;
    if (rowIndex % 2 === 1) doc.rect(MARGIN, top, CONTENT_WIDTH, height).fill('#f4f6f8');
    doc.fillColor('#111111');
    texts.forEach((value, index) => {
      if (!value) return;
      doc.text(value, lefts[index]! + CELL_PAD, top + CELL_PAD, {
        width: widths[index]! - 2 * CELL_PAD,
        height: lines * lineHeight,
        ellipsis: true,
        align: numeric[index] ? 'right' : 'left',
      });
    });
    doc.y = top + height;
  });
  doc.moveTo(MARGIN, doc.y).lineTo(PAGE.width - MARGIN, doc.y).lineWidth(0.5).strokeColor('#999999').stroke();

  // --- Totals ---------------------------------------------------------------------------------------
  const totalsHeight = document.totals.length * 13 + 24;
  if (doc.y + totalsHeight > bottomLimit) {
    doc.addPage();
    doc.y = MARGIN;
  }
  doc.y += 10;
  doc.font('Helvetica-Bold').fontSize(10).fillColor(brand.primaryColor).text(t('tripExport.totals'), MARGIN, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.3);
  for (const { label, value } of document.totals) {
    const y = doc.y;
    doc.font('Helvetica').fontSize(9).fillColor('#555555').text(label, MARGIN, y, { width: 220, lineBreak: false });
    doc.font('Helvetica-Bold').fontSize(9).fillColor('#111111').text(formatValue(value, document.language), MARGIN + 220, y, { width: 80, align: 'right', lineBreak: false });
    doc.y = y + 13;
  }

  // --- Footer on every page -------------------------------------------------------------------------
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    doc.page.margins.bottom = 0;
    const footer = [brand.name, `${document.title} – ${document.registrationNumber || document.unitName}`, `${document.fromDay} – ${document.toDay}`, t('pdf.page', { page: index + 1, pages: range.count })];
    doc
      .font('Helvetica')
      .fontSize(7)
      .fillColor('#777777')
      .text(footer.join(' · '), MARGIN, PAGE.height - MARGIN + 8, { width: CONTENT_WIDTH, align: 'center', lineBreak: false });
  }
  doc.end();
  return done;
}
