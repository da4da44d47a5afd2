import { describe, expect, test } from 'bun:test';
import { dirname, join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import PDFDocument from 'pdfkit';
import { type ExportDocument, exportResponse, number, renderExport, renderExportBytes, text } from './index';
import { fitColumns } from './pdf';

const brand = { name: 'Acme Fleet', logoSvg: null, primaryColor: '#0b5cad', contactAddress: 'Storgatan 1', contactEmail: 'fleet@example.com', contactPhone: '+46 8 123' };

function sample(language: ExportDocument['language'], rowCount = 3): ExportDocument {
  const rows = Array.from({ length: rowCount }, (_, index) => [
    `2026-03-${String(1 + (index % 28)).padStart(2, '0')}`,
    '08:15',
    index === 1 ? '=SUM(A1:A9)' : `Kund ${index}; "offert"`,
    1234.5 + index,
    index === 2 ? null : 'Anna',
  ]);
  return {
    title: 'Bränslerapport',
    subject: 'ABC123',
    language,
    timeZone: 'Europe/Stockholm',
    generatedAt: new Date('2026-03-31T22:05:00Z'),
    brand,
    facts: [
      { label: 'Fordon', value: text('ABC123') },
      { label: 'Mätarställning', unit: 'km', value: number(12000, 0) },
    ],
    columns: [
      { label: 'Datum', type: 'date', width: 10 },
      { label: 'Tid', type: 'time', width: 6 },
      { label: 'Ärende', type: 'text', width: 20 },
      { label: 'Sträcka', type: 'number', unit: 'km', decimals: 1, width: 8 },
      { label: 'Förare', type: 'text', width: 12 },
    ],
    rows,
    totals: [{ label: 'Totalt', unit: 'km', value: number(3706.5, 1) }],
    notes: ['-Privata resor visas utan ärende.'],
    footer: ['Bränslerapport – ABC123'],
  };
}

async function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const root = dirname(require.resolve('pdfjs-dist/package.json'));
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), standardFontDataUrl: `${join(root, 'standard_fonts')}/`, verbosity: 0 });
  const document = await task.promise;
  const texts: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  const result = { pages: document.numPages, text: texts.join('\n').replace(/\s+/g, ' ').replace(/\u00a0/g, ' ') };
  await task.destroy();
  return result;
}

describe('export kit', () => {
  test('CSV in Swedish: BOM, semicolons, decimal comma, units in labels, quoting, neutralised formulas, totals and notes', async () => {
    const bytes = await renderExportBytes(sample('sv'), 'csv');
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes.slice(3)).split('\r\n')).toEqual([
      'Bränslerapport',
      'Fordon;ABC123',
      'Mätarställning (km);12000',
      '',
      'Datum;Tid;Ärende;Sträcka (km);Förare',
      // A decimal comma is quoted too, as a field with a comma always has been (Excel reads it as a number).
      '2026-03-01;08:15;"Kund 0; ""offert""";"1234,5";Anna',
      `2026-03-02;08:15;'=SUM(A1:A9);"1235,5";Anna`,
      '2026-03-03;08:15;"Kund 2; ""offert""";"1236,5";',
      '',
      'Totalt (km);"3706,5"',
      '',
      "'-Privata resor visas utan ärende.",
      '',
    ]);
  });

  test('CSV in English: commas and a decimal point', async () => {
    const text = new TextDecoder().decode((await renderExportBytes(sample('en'), 'csv')).slice(3));
    expect(text.split('\r\n').slice(4, 6)).toEqual(['Datum,Tid,Ärende,Sträcka (km),Förare', '2026-03-01,08:15,"Kund 0; ""offert""",1234.5,Anna']);
  });

  test('XLSX: a workbook with typed cells, the header frozen and filtered, totals and notes below', async () => {
    const files = unzipSync(await renderExportBytes(sample('no'), 'xlsx'));
    expect(Object.keys(files).sort()).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'docProps/app.xml',
      'docProps/core.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
    ]);
    const sheet = strFromU8(files['xl/worksheets/sheet1.xml']!);
    // Title row 1, two facts, a blank row, the header on row 5.
    expect(sheet).toContain('<c r="A3" t="inlineStr" s="1"><is><t xml:space="preserve">Mätarställning (km)</t></is></c><c r="B3" s="4"><v>12000</v></c>');
    expect(sheet).toContain('<pane ySplit="5" topLeftCell="A6" activePane="bottomLeft" state="frozen"/>');
    expect(sheet).toContain('<c r="D5" t="inlineStr" s="1"><is><t xml:space="preserve">Sträcka (km)</t></is></c>');
    // 2026-03-01 is serial 46082; 08:15 is 0.34375 of a day; 1234.5 a number with one decimal (style 5).
    expect(sheet).toContain('<row r="6"><c r="A6" s="2"><v>46082</v></c><c r="B6" s="3"><v>0.34375</v></c>');
    expect(sheet).toContain('<c r="D6" s="5"><v>1234.5</v></c>');
    // A formula typed as text stays text: an inline string, never <f>.
    expect(sheet).toContain('<c r="C7" t="inlineStr"><is><t xml:space="preserve">=SUM(A1:A9)</t></is></c>');
    expect(sheet).not.toContain('<f>');
    // An empty cell is left out.
    expect(sheet).not.toContain('r="E8"');
    expect(sheet).toContain('<autoFilter ref="A5:E8"/>');
    expect(sheet).toContain('<row r="10"><c r="A10" t="inlineStr" s="1"><is><t xml:space="preserve">Totalt (km)</t></is></c><c r="B10" s="7"><v>3706.5</v></c></row>');
    expect(sheet).toContain('<row r="12"><c r="A12" t="inlineStr"><is><t xml:space="preserve">-Privata resor visas utan ärende.</t></is></c></row>');
    expect(strFromU8(files['xl/workbook.xml']!)).toContain(`'Bränslerapport'!$A$5:$E$8`);
  });

  test('PDF: the brand, the facts with units, numbers in the reader\'s format, totals, notes and page numbers', async () => {
    const pdf = await pdfText(await renderExportBytes(sample('sv'), 'pdf'));
    expect(pdf.pages).toBe(1);
    for (const expected of [
      'Acme Fleet',
      'Bränslerapport',
      'Skapad: 2026-04-01 00:05',
      'Mätarställning (km) 12 000',
      'Sträcka (km)',
      '1 234,5',
      'Summering',
      '3 706,5',
      'Anmärkningar',
      '-Privata resor visas utan ärende.',
      'Sida 1 av 1',
    ]) {
      expect({ expected, found: pdf.text.includes(expected) }).toEqual({ expected, found: true });
    }
  });

  test('a header word never breaks: columns too narrow for their longest word are widened, the others share the rest', () => {
    const doc = new PDFDocument({ size: 'A4', layout: 'landscape' });
    const labels = ['Date', 'Business or private', 'Kilometerstand ved periodens start (km)', 'Purpose'];
    const { widths, headerFontSize } = fitColumns(doc, labels, [20, 1, 1, 30], 400);
    expect(widths.reduce((sum, width) => sum + width, 0)).toBeCloseTo(400, 6);
    doc.font('Helvetica-Bold').fontSize(headerFontSize);
    labels.forEach((label, index) => {
      for (const word of label.split(' ')) expect({ word, fits: doc.widthOfString(word) <= widths[index]! - 6 }).toEqual({ word, fits: true });
    });
    // The wide columns keep their proportion between themselves.
    expect(widths[3]! / widths[0]!).toBeCloseTo(30 / 20, 6);
    // Twelve columns in too little room: the header's font shrinks rather than splitting a word.
    const squeezed = fitColumns(doc, Array(12).fill('Kilometerstand'), Array(12).fill(1), 600);
    expect(squeezed.headerFontSize).toBeLessThan(7.5);
    doc.font('Helvetica-Bold').fontSize(squeezed.headerFontSize);
    expect(doc.widthOfString('Kilometerstand')).toBeLessThanOrEqual(squeezed.widths[0]! - 6);
    // Far more columns than any font fits: every column still gets a positive share and together they fill the width.
    const crowded = fitColumns(doc, Array(40).fill('Kilometerstand'), Array(40).fill(1), 300);
    expect(crowded.widths.every((width) => width > 0)).toBe(true);
    expect(crowded.widths.reduce((sum, width) => sum + width, 0)).toBeCloseTo(300, 6);
  });

  test('a long PDF is written page by page: the first pages are out before the last rows are drawn; a new page repeats the header', async () => {
    const document = sample('en', 2000);
    const seen: number[] = [];
    const parts: Uint8Array[] = [];
    for await (const chunk of renderExport(document, 'pdf')) {
      seen.push(chunk.rows);
      parts.push(chunk.data);
    }
    expect(seen.length).toBeGreaterThan(20);
    expect(seen[0]!).toBeLessThan(100);
    expect(parts[0]!.byteLength).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe(2000);
    const pdf = await pdfText(Buffer.concat(parts));
    expect(pdf.pages).toBe(seen.length);
    expect(pdf.text.split('Sträcka (km)').length - 1).toBe(pdf.pages);
    expect(pdf.text).toContain(`Page ${pdf.pages} of ${pdf.pages}`);
  }, 60_000);

  test('the HTTP answer: a small file whole with its length, a long one streamed with an estimate of its size', async () => {
    const small = await exportResponse(sample('sv'), 'csv', 'rapport-å.csv');
    expect(small.headers.get('content-length')).toBe(String((await renderExportBytes(sample('sv'), 'csv')).byteLength));
    expect(small.headers.get('content-disposition')).toBe(`attachment; filename="rapport-_.csv"; filename*=UTF-8''rapport-%C3%A5.csv`);
    for (const format of ['csv', 'xlsx', 'pdf'] as const) {
      const document = sample('sv', format === 'pdf' ? 1500 : 20_000);
      const response = await exportResponse(document, format, `long.${format}`);
      expect(response.headers.get('content-length')).toBeNull();
      const estimate = Number(response.headers.get('x-estimated-length'));
      const body = new Uint8Array(await response.arrayBuffer());
      expect(body.byteLength).toBeGreaterThan(64 * 1024);
      expect({ format, close: Math.abs(estimate - body.byteLength) / body.byteLength < 0.25 }).toEqual({ format, close: true });
      if (format !== 'pdf') expect(Buffer.from(body).equals(await renderExportBytes(document, format))).toBe(true);
    }
  }, 60_000);
});
