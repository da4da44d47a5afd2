import { COLOR, createPdf, drawBrandHeader, drawFooter, type ExportBrand, FONT, pageFrame } from '../../lib/export';
import { type Language, translate } from '../../lib/i18n';
import type { ObjectDescriptionInput, TheftReportInput } from './model';

/**
 * Object description and theft report as PDF (spec §1, §3): A4 on the export kit's frame (its brand header with the
 * logo and contact details, its footer), every field with its label in the reader's language, and the unit's pictures.
 */

/** The brand a PDF is drawn with: the export kit's. */
export type PdfBrand = ExportBrand;

export interface PdfContext {
  language: Language;
  brand: PdfBrand;
  generatedAt: Date;
  timeZone: string;
}

export interface PdfUnit {
  name: string;
  registrationNumber: string;
  imei: string;
  model: string;
}

export interface PdfImage {
  data: Uint8Array;
  contentType: string;
}

const FRAME = pageFrame('portrait', 50);
const MARGIN = FRAME.margin;
const CONTENT_WIDTH = FRAME.contentWidth;
const LABEL_WIDTH = 170;
const EMPTY = '–';

type Row = [label: string, value: string | number | null | undefined];

function formatDateTime(date: Date, language: Language, timeZone: string): string {
  const locale = language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', timeZone }).format(date);
  } catch {
    return date.toISOString().slice(0, 16).replace('T', ' ');
  }
}

function formatNumber(value: number, language: Language): string {
  return new Intl.NumberFormat(language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE', { maximumFractionDigits: 2 }).format(value);
}

class Writer {
  readonly doc: PDFKit.PDFDocument;
  private readonly chunks: Uint8Array[] = [];
  private readonly done: Promise<Uint8Array>;

  constructor(
    private readonly context: PdfContext,
    title: string,
  ) {
    // Pages are buffered: the footer's "page n of m" is drawn once the count is known.
    this.doc = createPdf(FRAME, { title, brand: context.brand, language: context.language }, { bufferPages: true });
    this.doc.on('data', (chunk: Uint8Array) => this.chunks.push(chunk));
    this.done = new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve(Buffer.concat(this.chunks)));
      this.doc.on('error', reject);
    });
  }

  t(key: string, params?: Record<string, string | number>): string {
    return translate(this.context.language, key, params);
  }

  header(title: string, unit: PdfUnit) {
    const { doc } = this;
    const { brand } = this.context;
    const ruleY = drawBrandHeader(doc, FRAME, brand, { logoHeight: 42, contactWidth: CONTENT_WIDTH - 260 });
    doc.font(FONT.bold).fontSize(20).fillColor(COLOR.text).text(title, MARGIN, ruleY + 15, { width: CONTENT_WIDTH });
    doc.font(FONT.bold).fontSize(13).text(unit.name, { width: CONTENT_WIDTH });
    doc
      .font(FONT.regular)
      .fontSize(9)
      .fillColor(COLOR.muted)
      .text(
        `${this.t('pdf.generated')}: ${formatDateTime(this.context.generatedAt, this.context.language, this.context.timeZone)}`,
        { width: CONTENT_WIDTH },
      );
    doc.moveDown(0.8);
    this.rows(this.t('pdf.section.unit'), [
      [this.t('pdf.field.unitName'), unit.name],
      [this.t('pdf.field.registrationNumber'), unit.registrationNumber],
      [this.t('pdf.field.imei'), unit.imei],
      [this.t('pdf.field.trackerModel'), unit.model],
    ]);
  }

  private ensureSpace(height: number) {
    if (this.doc.y + height > this.doc.page.height - MARGIN - 30) this.doc.addPage();
  }

  rows(heading: string, rows: Row[]) {
    const { doc } = this;
    this.ensureSpace(50);
    doc.moveDown(0.4);
    doc.font(FONT.bold).fontSize(12).fillColor(this.context.brand.primaryColor).text(heading, MARGIN, doc.y, { width: CONTENT_WIDTH });
    doc.moveDown(0.3);
    for (const [label, raw] of rows) {
      const value = raw === null || raw === undefined || raw === '' ? EMPTY : typeof raw === 'number' ? formatNumber(raw, this.context.language) : raw;
      doc.font(FONT.regular).fontSize(10);
      const height = Math.max(doc.heightOfString(label, { width: LABEL_WIDTH - 10 }), doc.heightOfString(value, { width: CONTENT_WIDTH - LABEL_WIDTH }));
      this.ensureSpace(height + 6);
      const y = doc.y;
      doc.fillColor(COLOR.muted).text(label, MARGIN, y, { width: LABEL_WIDTH - 10 });
      doc.fillColor(COLOR.text).text(value, MARGIN + LABEL_WIDTH, y, { width: CONTENT_WIDTH - LABEL_WIDTH });
      doc.y = y + height + 4;
    }
  }

  images(images: PdfImage[]) {
    if (images.length === 0) return;
    const { doc } = this;
    this.ensureSpace(220);
    doc.moveDown(0.4);
    doc.font(FONT.bold).fontSize(12).fillColor(this.context.brand.primaryColor).text(this.t('pdf.section.pictures'), MARGIN, doc.y);
    doc.moveDown(0.4);
    const cellWidth = (CONTENT_WIDTH - 15) / 2;
    const cellHeight = 180;
    let column = 0;
    let top = doc.y;
    for (const image of images) {
      if (column === 0) {
        if (top + cellHeight > doc.page.height - MARGIN - 30) {
          doc.addPage();
          top = doc.y;
        }
      }
      try {
        doc.image(Buffer.from(image.data), MARGIN + column * (cellWidth + 15), top, { fit: [cellWidth, cellHeight], align: 'center', valign: 'center' });
      } catch {
        // A picture PDFKit cannot read is left out rather than failing the whole document.
      }
      column += 1;
      if (column === 2) {
        column = 0;
        top += cellHeight + 12;
      }
    }
    doc.y = column === 0 ? top : top + cellHeight + 12;
  }

  footer() {
    const { doc } = this;
    const range = doc.bufferedPageRange();
    for (let index = range.start; index < range.start + range.count; index++) {
      doc.switchToPage(index);
      drawFooter(doc, FRAME, [this.context.brand.name, this.t('pdf.page', { page: index + 1, pages: range.count })]);
    }
  }

  async finish(): Promise<Uint8Array> {
    this.footer();
    this.doc.end();
    return this.done;
  }
}

function descriptionRows(writer: Writer, description: ObjectDescriptionInput): { main: Row[]; marine: Row[] | null; links: Row[] } {
  const t = (key: string) => writer.t(key);
  const main: Row[] = [
    [t('pdf.field.objectType'), t(`units.objectType.${description.objectType}`)],
    [t('pdf.field.manufacturer'), description.manufacturer],
    [t('pdf.field.model'), description.model],
    [t('pdf.field.year'), description.year === null ? null : String(description.year)],
    [t('pdf.field.hullNumber'), description.hullNumber],
    [t('pdf.field.motor'), description.motor],
    [t('pdf.field.motorNumber'), description.motorNumber],
    [t('pdf.field.horsepower'), description.horsepower],
    [t('pdf.field.trackerLocation'), description.trackerLocation],
    [t('pdf.field.dnaMarking'), description.dnaMarking],
    [t('pdf.field.insuranceCompany'), description.insuranceCompany],
    [t('pdf.field.insuranceNumber'), description.insuranceNumber],
    [t('pdf.field.policeDetails'), description.policeDetails],
  ];
  const isMarine = description.objectType === 'boat' || description.objectType === 'waterjet';
  const marine: Row[] | null = isMarine
    ? [
        [t('pdf.field.serialNumber'), description.serialNumber],
        [t('pdf.field.productionDate'), description.productionDate],
        [t('pdf.field.skirtType'), description.skirtType ? t(`units.skirtType.${description.skirtType}`) : null],
        [t('pdf.field.lengthM'), description.lengthM],
        [t('pdf.field.depthM'), description.depthM],
        [t('pdf.field.weightKg'), description.weightKg],
        [t('pdf.field.ballastType'), description.ballastType ? t(`units.ballastType.${description.ballastType}`) : null],
      ]
    : null;
  const links: Row[] = description.links.map((link) => [link.name, link.url]);
  return { main, marine, links };
}

function writeDescription(writer: Writer, description: ObjectDescriptionInput) {
  const { main, marine, links } = descriptionRows(writer, description);
  writer.rows(writer.t('pdf.section.object'), main);
  if (marine) writer.rows(writer.t('pdf.section.marine'), marine);
  if (links.length > 0) writer.rows(writer.t('pdf.section.links'), links);
}

export async function objectDescriptionPdf(context: PdfContext, unit: PdfUnit, description: ObjectDescriptionInput, images: PdfImage[]): Promise<Uint8Array> {
  const title = translate(context.language, 'pdf.objectDescription.title');
  const writer = new Writer(context, `${title} – ${unit.name}`);
  writer.header(title, unit);
  writeDescription(writer, description);
  writer.images(images);
  return writer.finish();
}

export async function theftReportPdf(
  context: PdfContext,
  unit: PdfUnit,
  report: TheftReportInput,
  description: ObjectDescriptionInput | null,
  images: PdfImage[],
): Promise<Uint8Array> {
  const title = translate(context.language, 'pdf.theftReport.title');
  const writer = new Writer(context, `${title} – ${unit.name}`);
  const t = (key: string) => writer.t(key);
  writer.header(title, unit);
  writer.rows(t('pdf.section.theft'), [
    [t('pdf.field.theftDate'), report.theftDate],
    [t('pdf.field.stolenFrom'), report.stolenFrom],
    [t('pdf.field.whatStolen'), report.whatStolen],
    [t('pdf.field.policeStation'), report.policeStation],
    [t('pdf.field.policeReportNumber'), report.policeReportNumber],
    [t('pdf.field.insuranceClaimNumber'), report.insuranceClaimNumber],
    [t('pdf.field.otherInformation'), report.otherInformation],
  ]);
  writer.rows(t('pdf.section.owner'), [
    [t('pdf.field.ownerName'), report.ownerName],
    [t('pdf.field.ownerEmail'), report.ownerEmail],
    [t('pdf.field.ownerPhone'), report.ownerPhone],
  ]);
  if (description) writeDescription(writer, description);
  writer.images(images);
  return writer.finish();
}
