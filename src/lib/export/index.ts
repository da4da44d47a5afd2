/**
 * The export kit: one document model (`document.ts`) written as PDF, XLSX or CSV, streamed as a download.
 * Features build an `ExportDocument`; nothing here knows a feature.
 */
export * from './document';
export { drawBrandHeader, drawFooter, createPdf, FONT, COLOR, pageFrame, tint, type PageFrame } from './pdf-frame';
export { exportResponse, renderExport, renderExportBytes, type ExportChunk } from './render';
