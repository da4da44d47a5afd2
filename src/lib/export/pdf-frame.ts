import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import type { ExportBrand } from './document';

/**
 * The generic parts of a branded PDF: page sizes, fonts, the brand header (logo or name, contact lines, a rule
 * in the brand colour) and the page footer. Documents built on it keep one look.
 */

export const FONT = { regular: 'Helvetica', bold: 'Helvetica-Bold' } as const;
export const COLOR = { text: '#111111', muted: '#555555', faint: '#777777', rule: '#999999', stripe: '#f4f6f8' } as const;

export interface PageFrame {
  size: 'A4';
  layout: 'portrait' | 'landscape';
  margin: number;
  width: number;
  height: number;
  /** Width between the margins. */
  contentWidth: number;
}

export function pageFrame(layout: PageFrame['layout'], margin: number): PageFrame {
  const [short, long] = [595.28, 841.89];
  const width = layout === 'landscape' ? long : short;
  const height = layout === 'landscape' ? short : long;
  return { size: 'A4', layout, margin, width, height, contentWidth: width - 2 * margin };
}

/**
 * A PDF document on a frame. Without `bufferPages` pdfkit writes each page out as soon as the next one is
 * added, so a long document can be sent while it is drawn.
 */
export function createPdf(frame: PageFrame, info: { title: string; brand: ExportBrand; language?: string }, options: { bufferPages?: boolean } = {}): PDFKit.PDFDocument {
  return new PDFDocument({
    size: frame.size,
    layout: frame.layout,
    margin: frame.margin,
    bufferPages: options.bufferPages ?? false,
    lang: info.language,
    info: { Title: info.title, Author: info.brand.name, Creator: info.brand.name },
  });
}

/** A light tint of the brand colour (table headers). */
export function tint(hex: string, amount: number): string {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!match) return '#e8eef7';
  const value = Number.parseInt(match[1]!, 16);
  const channel = (shift: number) => Math.round(((value >> shift) & 0xff) + (255 - ((value >> shift) & 0xff)) * amount);
  return `#${[16, 8, 0].map((shift) => channel(shift).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The brand header at the top of the current page: the logo (or the brand's name when there is none or it
 * cannot be drawn) at the left, the contact lines at the right, and a rule in the brand colour.
 * Returns the y below the rule.
 */
export function drawBrandHeader(doc: PDFKit.PDFDocument, frame: PageFrame, brand: ExportBrand, options: { logoHeight: number; contactWidth: number }): number {
  const { margin } = frame;
  let logo = false;
  if (brand.logoSvg) {
    try {
      SVGtoPDF(doc, brand.logoSvg, margin, margin - 8, { height: options.logoHeight, preserveAspectRatio: 'xMinYMin meet' });
      logo = true;
    } catch {
      logo = false;
    }
  }
  if (!logo) doc.font(FONT.bold).fontSize(15).fillColor(brand.primaryColor).text(brand.name, margin, margin - 4, { lineBreak: false });
  const contact = [brand.name, brand.contactAddress, [brand.contactPhone, brand.contactEmail].filter(Boolean).join(' · ')].filter(Boolean).join('\n');
  doc
    .font(FONT.regular)
    .fontSize(7.5)
    .fillColor(COLOR.muted)
    .text(contact, frame.width - margin - options.contactWidth, margin - 8, { width: options.contactWidth, align: 'right' });
  const ruleY = margin + options.logoHeight - 2;
  doc.moveTo(margin, ruleY).lineTo(frame.width - margin, ruleY).lineWidth(1.2).strokeColor(brand.primaryColor).stroke();
  return ruleY;
}

/** One centred footer line at the bottom of the current page. */
export function drawFooter(doc: PDFKit.PDFDocument, frame: PageFrame, parts: string[]): void {
  const bottom = doc.page.margins.bottom;
  doc.page.margins.bottom = 0;
  doc
    .font(FONT.regular)
    .fontSize(7)
    .fillColor(COLOR.faint)
    .text(parts.filter(Boolean).join(' · '), frame.margin, frame.height - frame.margin + 8, { width: frame.contentWidth, align: 'center', lineBreak: false });
  doc.page.margins.bottom = bottom;
}
