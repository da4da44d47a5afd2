import { translate } from '../i18n';
import { cellValue, type ExportDocument, type ExportValue, formatInstant, labelWithUnit, locale } from './document';
import { COLOR, createPdf, drawBrandHeader, drawFooter, FONT, pageFrame, tint } from './pdf-frame';
import type { ExportChunk } from './render';

/**
 * The document as PDF: A4 landscape, the brand header, the title, when it was made and the facts on the first
 * page, the table with its header repeated on every page, the totals and notes, and a footer with "page n of
 * m" on each page. Rows are measured and laid out on pages first (numbers only), so the page count is known
 * before anything is drawn; then each page is drawn and sent on its own.
 */

const MARGIN = 36;
const FONT_SIZE = 7.5;
const HEADER_FONT_SIZE = 7.5;
/** The header's font may shrink this far to keep every word of every column label whole. */
const MIN_HEADER_FONT_SIZE = 5.5;
const CELL_PAD = 3;
const MAX_LINES = 3;
const FACT_LINE = 13;
const TOTALS_HEADING = 14;
const NOTE_GAP = 3;

const frame = pageFrame('landscape', MARGIN);
const BOTTOM_LIMIT = frame.height - MARGIN - 14;

/**
 * Column widths in which no header word has to break: each column is at least as wide as its widest label
 * word; the rest of the width is shared by the columns' weights. When even the narrowest such layout does
 * not fit, the header font shrinks (down to MIN_HEADER_FONT_SIZE).
 */
export function fitColumns(doc: PDFKit.PDFDocument, labels: string[], weights: number[], total: number): { widths: number[]; headerFontSize: number } {
  for (let size = HEADER_FONT_SIZE; size >= MIN_HEADER_FONT_SIZE; size -= 0.5) {
    doc.font(FONT.bold).fontSize(size);
    const minimum = labels.map((label) => Math.max(0, ...label.split(/\s+/).map((word) => doc.widthOfString(word))) + 2 * CELL_PAD + 0.5);
    const needed = minimum.reduce((sum, width) => sum + width, 0);
    if (needed > total) {
      if (size - 0.5 >= MIN_HEADER_FONT_SIZE) continue;
      // More columns than any header font fits: each gets its share of what its longest word needs.
      return { widths: minimum.map((width) => (width / needed) * total), headerFontSize: size };
    }
    // Water-filling: columns whose share is below their minimum get the minimum, the others share the rest.
    const fixed = new Set<number>();
    for (;;) {
      const fixedWidth = [...fixed].reduce((sum, index) => sum + minimum[index]!, 0);
      const freeWeight = weights.reduce((sum, weight, index) => (fixed.has(index) ? sum : sum + weight), 0);
      const share = (index: number) => (fixed.has(index) ? minimum[index]! : ((total - fixedWidth) * weights[index]!) / freeWeight);
      const short = weights.findIndex((_, index) => !fixed.has(index) && share(index) < minimum[index]!);
      if (short === -1 || fixed.size === weights.length - 1) return { widths: weights.map((_, index) => share(index)), headerFontSize: size };
      fixed.add(short);
    }
  }
  throw new Error('unreachable: the smallest header font returns');
}

interface PagePlan {
  rowStart: number;
  rowEnd: number;
  /** Whether the table (its header) is on this page. */
  table: boolean;
  /** y of the totals heading, when the totals are on this page. */
  totalsY: number | null;
  /** y of the notes heading and of each note on this page. */
  notesY: number | null;
  notes: Array<{ index: number; y: number }>;
}

export async function* pdfChunks(document: ExportDocument): AsyncGenerator<ExportChunk> {
  const t = (key: string, params?: Record<string, string | number>) => translate(document.language, key, params);
  const doc = createPdf(frame, { title: `${document.title} – ${document.subject}`, brand: document.brand, language: locale(document.language) });
  const pending: Uint8Array[] = [];
  doc.on('data', (chunk: Uint8Array) => pending.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  const take = async (): Promise<Uint8Array> => {
    // pdfkit pushes into a stream; its chunks reach the listener once the event loop turns.
    await new Promise((resolve) => setImmediate(resolve));
    const data = Buffer.concat(pending);
    pending.length = 0;
    return data;
  };
  const numberFormats = new Map<number, Intl.NumberFormat>();
  const format = (value: ExportValue | null): string => {
    if (value === null) return '';
    if (value.type !== 'number') return value.value;
    let formatter = numberFormats.get(value.decimals);
    if (!formatter) {
      formatter = new Intl.NumberFormat(locale(document.language), { minimumFractionDigits: value.decimals, maximumFractionDigits: value.decimals });
      numberFormats.set(value.decimals, formatter);
    }
    return formatter.format(value.value);
  };

  // --- The first page's head: brand, title, when it was made, the facts ------------------------------------
  const ruleY = drawBrandHeader(doc, frame, document.brand, { logoHeight: 30, contactWidth: 360 });
  doc.font(FONT.bold).fontSize(16).fillColor(COLOR.text).text(document.title, MARGIN, ruleY + 10, { width: frame.contentWidth });
  doc
    .font(FONT.regular)
    .fontSize(8)
    .fillColor(COLOR.muted)
    .text(`${t('pdf.generated')}: ${formatInstant(document.generatedAt, document.timeZone)}`, { width: frame.contentWidth });
  doc.moveDown(0.5);
  const factsTop = doc.y;
  const half = Math.ceil(document.facts.length / 2);
  const factColumn = frame.contentWidth / 2;
  let factsBottom = factsTop;
  document.facts.forEach((fact, index) => {
    const x = MARGIN + (index < half ? 0 : factColumn);
    const y = factsTop + (index < half ? index : index - half) * FACT_LINE;
    doc.font(FONT.regular).fontSize(9).fillColor(COLOR.muted).text(labelWithUnit(fact), x, y, { width: 190, lineBreak: false });
    doc.font(FONT.bold).fontSize(9).fillColor(COLOR.text).text(format(fact.value) || '–', x + 195, y, { width: factColumn - 200, lineBreak: false });
    factsBottom = Math.max(factsBottom, y + FACT_LINE);
  });
  const tableTop = factsBottom + 10;

  // --- Measure: column widths, header height, every row's height --------------------------------------------
  const { columns, rows } = document;
  const labels = columns.map(labelWithUnit);
  const { widths, headerFontSize } = fitColumns(
    doc,
    labels,
    columns.map((column) => column.width),
    frame.contentWidth,
  );
  const lefts = widths.map((_, index) => MARGIN + widths.slice(0, index).reduce((sum, width) => sum + width, 0));
  const numeric = columns.map((column) => column.type === 'number');
  doc.font(FONT.bold).fontSize(headerFontSize);
  const headerHeight = Math.max(0, ...labels.map((label, index) => doc.heightOfString(label, { width: widths[index]! - 2 * CELL_PAD }))) + 2 * CELL_PAD;
  doc.font(FONT.regular).fontSize(FONT_SIZE);
  const lineHeight = doc.currentLineHeight(true);
  const texts = rows.map((row) => columns.map((column, index) => format(cellValue(column, row[index] ?? null))));
  const lines = texts.map((row) =>
    Math.min(
      MAX_LINES,
      Math.max(
        1,
        ...row.map((value, index) => {
          const width = widths[index]! - 2 * CELL_PAD;
          // Measuring the wrapped height is costly; most cells fit on one line, which the width alone tells.
          if (!value || doc.widthOfString(value) <= width) return 1;
          return Math.ceil(doc.heightOfString(value, { width }) / lineHeight - 0.01);
        }),
      ),
    ),
  );
  const rowHeight = (index: number) => lines[index]! * lineHeight + 2 * CELL_PAD;
  doc.font(FONT.regular).fontSize(8);
  const noteHeights = document.notes.map((note) => doc.heightOfString(note, { width: frame.contentWidth }));

  // --- Lay out the pages ------------------------------------------------------------------------------------
  const pages: PagePlan[] = [];
  let page: PagePlan = { rowStart: 0, rowEnd: 0, table: true, totalsY: null, notesY: null, notes: [] };
  let y = tableTop + headerHeight;
  const newPage = (table: boolean) => {
    pages.push(page);
    page = { rowStart: page.rowEnd, rowEnd: page.rowEnd, table, totalsY: null, notesY: null, notes: [] };
    y = MARGIN + (table ? headerHeight : 0);
  };
  for (let index = 0; index < rows.length; index++) {
    if (y + rowHeight(index) > BOTTOM_LIMIT && page.rowEnd > page.rowStart) newPage(true);
    y += rowHeight(index);
    page.rowEnd = index + 1;
  }
  if (document.totals.length > 0) {
    if (y + 10 + TOTALS_HEADING + document.totals.length * FACT_LINE > BOTTOM_LIMIT) newPage(false);
    page.totalsY = y + 10;
    y = page.totalsY + TOTALS_HEADING + document.totals.length * FACT_LINE;
  }
  document.notes.forEach((_, index) => {
    const heading = index === 0 ? 10 + TOTALS_HEADING : 0;
    if (y + heading + noteHeights[index]! > BOTTOM_LIMIT) newPage(false);
    if (index === 0) {
      page.notesY = y + 10;
      y = page.notesY + TOTALS_HEADING;
    }
    page.notes.push({ index, y });
    y += noteHeights[index]! + NOTE_GAP;
  });
  pages.push(page);

  // --- Draw and send each page ------------------------------------------------------------------------------
  const headerFill = tint(document.brand.primaryColor, 0.85);
  const drawTableHeader = (top: number) => {
    doc.rect(MARGIN, top, frame.contentWidth, headerHeight).fill(headerFill);
    doc.font(FONT.bold).fontSize(headerFontSize).fillColor(COLOR.text);
    labels.forEach((label, index) => {
      doc.text(label, lefts[index]! + CELL_PAD, top + CELL_PAD, { width: widths[index]! - 2 * CELL_PAD, align: numeric[index] ? 'right' : 'left' });
    });
  };
  const drawHeading = (label: string, top: number) => {
    doc.font(FONT.bold).fontSize(10).fillColor(document.brand.primaryColor).text(label, MARGIN, top, { width: frame.contentWidth, lineBreak: false });
  };
  for (let number = 0; number < pages.length; number++) {
    const plan = pages[number]!;
    if (number > 0) {
      doc.addPage();
      yield { data: await take(), rows: plan.rowStart };
    }
    let top = number === 0 ? tableTop : MARGIN;
    if (plan.table) {
      drawTableHeader(top);
      top += headerHeight;
      doc.font(FONT.regular).fontSize(FONT_SIZE);
      for (let index = plan.rowStart; index < plan.rowEnd; index++) {
        const height = rowHeight(index);
        if (index % 2 === 1) doc.rect(MARGIN, top, frame.contentWidth, height).fill(COLOR.stripe);
        doc.fillColor(COLOR.text);
        texts[index]!.forEach((value, at) => {
          if (!value) return;
          doc.text(value, lefts[at]! + CELL_PAD, top + CELL_PAD, {
            width: widths[at]! - 2 * CELL_PAD,
            height: lines[index]! * lineHeight,
            ellipsis: true,
            align: numeric[at] ? 'right' : 'left',
          });
        });
        top += height;
      }
      if (plan.rowEnd === rows.length) doc.moveTo(MARGIN, top).lineTo(frame.width - MARGIN, top).lineWidth(0.5).strokeColor(COLOR.rule).stroke();
    }
    if (plan.totalsY !== null) {
      drawHeading(t('export.totals'), plan.totalsY);
      document.totals.forEach((total, index) => {
        const at = plan.totalsY! + TOTALS_HEADING + index * FACT_LINE;
        doc.font(FONT.regular).fontSize(9).fillColor(COLOR.muted).text(labelWithUnit(total), MARGIN, at, { width: 220, lineBreak: false });
        doc.font(FONT.bold).fontSize(9).fillColor(COLOR.text).text(format(total.value), MARGIN + 220, at, { width: 80, align: 'right', lineBreak: false });
      });
    }
    if (plan.notesY !== null) drawHeading(t('export.notes'), plan.notesY);
    for (const { index, y: at } of plan.notes) {
      doc.font(FONT.regular).fontSize(8).fillColor(COLOR.text).text(document.notes[index]!, MARGIN, at, { width: frame.contentWidth });
    }
    drawFooter(doc, frame, [document.brand.name, ...document.footer, t('pdf.page', { page: number + 1, pages: pages.length })]);
  }
  doc.end();
  await ended;
  yield { data: await take(), rows: rows.length };
}
