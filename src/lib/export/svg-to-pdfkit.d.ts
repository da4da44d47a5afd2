declare module 'svg-to-pdfkit' {
  /** Draws an SVG document onto a PDFKit page (MIT, github.com/alafr/SVG-to-PDFKit). */
  export default function SVGtoPDF(
    doc: PDFKit.PDFDocument,
    svg: string,
    x?: number,
    y?: number,
    options?: { width?: number; height?: number; preserveAspectRatio?: string; assumePt?: boolean },
  ): void;
}
