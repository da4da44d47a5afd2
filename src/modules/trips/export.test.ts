import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import { addUnit, rawCall, readPdf } from '../units/testing';
import { marketOf } from './export';

let app: TestApp;
let owner: Awaited<ReturnType<TestApp['createAccount']>>;
let token: string;
let unitId: number;
let otherUnitId: number;
let emptyUnitId: number;

const ARTIFACTS = join(import.meta.dir, '../../../artifacts/triplog');
const MILE = 1609.344;

async function addTrip(
  unit: number,
  accountId: number,
  start: string,
  minutes: number,
  odometerStartKm: number,
  km: number,
  type: string,
  extra: { purpose?: string; note?: string; startAddress?: string; stopAddress?: string } = {},
) {
  const stop = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  await app.database.query(
    `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, start_address, stop_address,
                        odometer_start_m, odometer_stop_m, odometer_source, distance_m, max_speed_kmh, avg_speed_kmh, type, purpose, note, detection)
     VALUES ($1, $2, $3, $4, ST_SetSRID(ST_MakePoint(18.0686, 59.3293), 4326), ST_SetSRID(ST_MakePoint(18.0009, 59.36), 4326),
             $5, $6, $7, $8, 'device', $9, 90, 50, $10, $11, $12, 'ignition')`,
    [
      unit,
      accountId,
      start,
      stop,
      extra.startAddress ?? 'Sveavägen 1, Stockholm',
      extra.stopAddress ?? 'Solna strandväg 3, Solna',
      odometerStartKm * 1000,
      (odometerStartKm + km) * 1000,
      km * 1000,
      type,
      extra.purpose ?? null,
      extra.note ?? null,
    ],
  );
}

async function setCountry(accountId: number, country: string) {
  await app.database.rows(sql`update accounts set country = ${country} where id = ${accountId}`);
}

async function download(query: string, options: { lang?: string; token?: string } = {}) {
  const response = await rawCall(app, 'GET', `/api/trips/export?${query}`, { token: options.token ?? token, lang: options.lang ?? 'sv' });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** RFC 4180 with a chosen separator: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** The sheet's cells as text by reference (A1 …), from the workbook's XML. */
function readSheet(bytes: Uint8Array): { files: string[]; cells: Map<string, { type: string | null; style: string | null; value: string }>; workbook: string } {
  const files = unzipSync(bytes);
  const sheet = strFromU8(files['xl/worksheets/sheet1.xml']!);
  const cells = new Map<string, { type: string | null; style: string | null; value: string }>();
  for (const match of sheet.matchAll(/<c r="([A-Z]+\d+)"([^>]*)>(.*?)<\/c>/g)) {
    const attributes = match[2]!;
    const type = /t="(\w+)"/.exec(attributes)?.[1] ?? null;
    const style = /s="(\d+)"/.exec(attributes)?.[1] ?? null;
    const body = match[3]!;
    const raw = type === 'inlineStr' ? (/<t[^>]*>(.*?)<\/t>/.exec(body)?.[1] ?? '') : (/<v>(.*?)<\/v>/.exec(body)?.[1] ?? '');
    const value = raw.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    cells.set(match[1]!, { type, style, value });
  }
  return { files: Object.keys(files).sort(), cells, workbook: strFromU8(files['xl/workbook.xml']!) };
}

beforeAll(async () => {
  app = await createTestApp();
  owner = await app.createAccount();
  await setCountry(owner.accountId, 'Sverige');
  token = await app.login(owner);
  unitId = await addUnit(app, owner.accountId, '356307042470001', 'Tjänstebil Volvo', { registrationNumber: 'ABC123' });
  emptyUnitId = await addUnit(app, owner.accountId, '356307042470003', 'Ny bil', { registrationNumber: 'NEW001' });
  const other = await app.createAccount();
  otherUnitId = await addUnit(app, other.accountId, '356307042470002', 'Secret car of B', { registrationNumber: 'SECRET1' });
  await addTrip(otherUnitId, other.accountId, '2026-02-10T10:00:00Z', 30, 500, 25, 'business', { purpose: 'Secret purpose' });
  // Stockholm time: 2 Feb 08:00, 2 Feb 17:30, 5 Feb 09:15, 28 Feb 23:30 (private, the evening of the 28th in Stockholm is 1 Mar? no: UTC+1).
  await addTrip(unitId, owner.accountId, '2026-02-02T07:00:00Z', 40, 12_000, 42.5, 'business', {
    purpose: 'Kundbesök; offert "Q1"',
    note: 'Acme AB, Anna Berg',
    stopAddress: 'Industrivägen 7, Uppsala',
  });
  await addTrip(unitId, owner.accountId, '2026-02-02T16:30:00Z', 45, 12_042.5, 41.3, 'private', { purpose: 'Should not show', note: 'Home' });
  await addTrip(unitId, owner.accountId, '2026-02-05T08:15:00Z', 20, 12_083.8, 12.2, 'business', { purpose: '=HYPERLINK("http://x")', note: 'Depot' });
  await addTrip(unitId, owner.accountId, '2026-02-27T23:30:00Z', 15, 12_096, 4, 'other');
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe('GET /api/trips/export', () => {
  test('CSV, Swedish körjournal by default for a Swedish account: BOM, semicolons, decimal comma, quoting, totals', async () => {
    const { response, bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="korjournal-se-ABC123-2026-02-01-2026-02-28.csv"; filename*=UTF-8''korjournal-se-ABC123-2026-02-01-2026-02-28.csv`,
    );
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    const rows = parseCsv(text, ';');
    expect(rows[0]).toEqual(['Körjournal (Skatteverket)']);
    expect(rows.slice(1, 7)).toEqual([
      ['Registreringsnummer', 'ABC123'],
      ['Fordon', 'Tjänstebil Volvo'],
      ['Period', '2026-02-01 – 2026-02-28'],
      ['Tidszon', 'Europe/Stockholm'],
      ['Mätarställning vid periodens början (km)', '12000'],
      ['Mätarställning vid periodens slut (km)', '12100'],
    ]);
    expect(rows[7]).toEqual(['']);
    expect(rows[8]).toEqual([
      'Datum',
      'Start',
      'Mätarställning start (km)',
      'Stopp',
      'Mätarställning stopp (km)',
      'Startadress',
      'Slutadress',
      'Sträcka (km)',
      'Tjänst eller privat',
      'Ärende',
      'Besökt (företag, plats, kontaktperson)',
      'Förare',
    ]);
    expect(rows.slice(9, 13)).toEqual([
      ['2026-02-02', '08:00', '12000', '08:40', '12042', 'Sveavägen 1, Stockholm', 'Industrivägen 7, Uppsala', '42,5', 'Tjänst', 'Kundbesök; offert "Q1"', 'Acme AB, Anna Berg', ''],
      // A private trip keeps its purpose and visited party out of the journal.
      ['2026-02-02', '17:30', '12042', '18:15', '12083', 'Sveavägen 1, Stockholm', 'Solna strandväg 3, Solna', '41,3', 'Privat', '', '', ''],
      // A purpose that looks like a formula is written as text.
      ['2026-02-05', '09:15', '12083', '09:35', '12096', 'Sveavägen 1, Stockholm', 'Solna strandväg 3, Solna', '12,2', 'Tjänst', `'=HYPERLINK("http://x")`, 'Depot', ''],
      ['2026-02-28', '00:30', '12096', '00:45', '12100', 'Sveavägen 1, Stockholm', 'Solna strandväg 3, Solna', '4,0', 'Övrigt', '', '', ''],
    ]);
    expect(rows.slice(13)).toEqual([[''], ['Tjänst (km)', '54,7'], ['Privat (km)', '41,3'], ['Övrigt (km)', '4,0'], ['Totalt (km)', '100,0'], ['Antal resor', '4']]);
    // The raw text quotes exactly the fields that need it.
    expect(text).toContain(';"Kundbesök; offert ""Q1""";');
  });

  test('CSV, UK HMRC log in English: commas, decimal point, miles', async () => {
    const { response, bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=csv&variant=uk`, { lang: 'en' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain('filename="trip-log-uk-ABC123-2026-02-01-2026-02-28.csv"');
    const rows = parseCsv(new TextDecoder().decode(bytes.slice(3)), ',');
    expect(rows[0]).toEqual(['Business mileage log (HMRC)']);
    expect(rows[5]).toEqual(['Odometer at start of period (miles)', String(Math.floor(12_000_000 / MILE))]);
    expect(rows[8]).toEqual([
      'Date',
      'Start',
      'End',
      'Start location',
      'End location',
      'Purpose',
      'Visited (company, place, contact)',
      'Distance (miles)',
      'Business or private',
      'Odometer start (miles)',
      'Odometer end (miles)',
      'Driver',
    ]);
    expect(rows[9]!.slice(0, 9)).toEqual(['2026-02-02', '08:00', '08:40', 'Sveavägen 1, Stockholm', 'Industrivägen 7, Uppsala', 'Kundbesök; offert "Q1"', 'Acme AB, Anna Berg', (42_500 / MILE).toFixed(1), 'Business']);
    const totals = Object.fromEntries(rows.slice(14).map((row) => [row[0], row[1]]));
    expect(totals).toEqual({
      'Business (miles)': (54_700 / MILE).toFixed(1),
      'Private (miles)': (41_300 / MILE).toFixed(1),
      'Other (miles)': (4_000 / MILE).toFixed(1),
      'Total (miles)': (100_000 / MILE).toFixed(1),
      'Number of trips': '4',
    });
  });

  test('XLSX, Norwegian kjørebok in Norwegian: a real workbook with typed cells', async () => {
    const { response, bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=xlsx&variant=no`, { lang: 'no' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(response.headers.get('content-disposition')).toContain('filename="kjorebok-no-ABC123-2026-02-01-2026-02-28.xlsx"');
    const { files, cells, workbook } = readSheet(bytes);
    expect(files).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'docProps/app.xml',
      'docProps/core.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
    ]);
    expect(workbook).toContain('<sheet name="Kjørebok (Skatteetaten)" sheetId="1" r:id="rId1"/>');
    const value = (ref: string) => cells.get(ref)?.value;
    expect(value('A1')).toBe('Kjørebok (Skatteetaten)');
    expect([value('A2'), value('B2')]).toEqual(['Registreringsnummer', 'ABC123']);
    expect([value('A6'), value('B6'), cells.get('B6')!.type]).toEqual(['Kilometerstand ved periodens start (km)', '12000', null]);
    // Header on row 9, as the kjørebok lists the fields.
    expect(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L'].map((column) => value(`${column}9`))).toEqual([
      'Dato',
      'Start',
      'Slutt',
      'Startadresse',
      'Besøkt (firma, sted, kontaktperson)',
      'Formål',
      'Sluttadresse',
      'Distanse (km)',
      'Yrke eller privat',
      'Kilometerstand start (km)',
      'Kilometerstand slutt (km)',
      'Sjåfør',
    ]);
    // Dates and times are spreadsheet serials (2026-02-02 = 46055; 08:00 = 1/3 day); distance a number.
    expect(cells.get('A10')).toEqual({ type: null, style: '2', value: '46055' });
    expect(Number(value('B10'))).toBeCloseTo(8 / 24, 10);
    expect([value('D10'), value('E10'), value('F10'), value('G10'), value('H10'), value('I10')]).toEqual([
      'Sveavägen 1, Stockholm',
      'Acme AB, Anna Berg',
      'Kundbesök; offert "Q1"',
      'Industrivägen 7, Uppsala',
      '42.5',
      'Yrkeskjøring',
    ]);
    expect(cells.get('H10')!.type).toBeNull();
    expect(value('I11')).toBe('Privat');
    expect(value('F11')).toBeUndefined();
    expect([value('A15'), value('B15'), value('A16'), value('B16'), value('A18'), value('B18')]).toEqual([
      'Yrkeskjøring (km)',
      '54.7',
      'Privat (km)',
      '41.3',
      'Totalt (km)',
      '100',
    ]);
  });

  test('PDF: one date format (YYYY-MM-DD, times HH:mm) in every part of the page, in every layout and language', async () => {
    for (const [variant, lang] of [
      ['se', 'sv'],
      ['no', 'no'],
      ['uk', 'en'],
      ['se', 'en'],
    ] as const) {
      const { bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=pdf&variant=${variant}&lang=${lang}`);
      const text = (await readPdf(bytes)).text.replace(/\u00a0/g, ' ');
      // Dates of the trips, the period, the footer and the time the document was made.
      expect((text.match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? []).length).toBeGreaterThanOrEqual(4 + 2 + 2 + 1);
      expect(text).toContain('2026-02-01 – 2026-02-28');
      expect(text).toMatch(/: 2026-03-02 \d{2}:\d{2}/);
      // No other way of writing a date anywhere: 2/3/2026, 02.03.2026, 2 Feb 2026, 2 februari 2026 …
      expect({ variant, lang, other: text.match(/\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b/g) }).toEqual({ variant, lang, other: null });
      expect({
        variant,
        lang,
        other: text.match(/\b\d{1,2}\.? (jan|feb|mar|apr|ma[ij]|jun|jul|aug|sep|o[ck]t|nov|de[cs])[a-zé]*\.? \d{4}\b/gi),
      }).toEqual({ variant, lang, other: null });
    }
  }, 60_000);

  test('PDF, Swedish körjournal with the brand, every trip, the odometer and the totals; its first page renders to PNG', async () => {
    const { response, bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=pdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toContain('filename="korjournal-se-ABC123-2026-02-01-2026-02-28.pdf"');
    const pdf = await readPdf(bytes);
    expect(pdf.pages).toBe(1);
    expect(pdf.title).toBe('Körjournal (Skatteverket) – Tjänstebil Volvo');
    for (const expected of [
      'Körjournal (Skatteverket)',
      'Registreringsnummer',
      'ABC123',
      'Mätarställning vid periodens början (km)',
      '12 000',
      '12 100',
      'Ärende',
      'Industrivägen 7, Uppsala',
      'Acme AB, Anna Berg',
      '42,5',
      'Tjänst',
      'Privat',
      'Summering',
      '54,7',
      '41,3',
      '100,0',
      'Sida 1 av 1',
    ]) {
      expect({ expected, found: pdf.text.replace(/\u00a0/g, ' ').includes(expected) }).toEqual({ expected, found: true });
    }
    expect(pdf.text).not.toContain('Should not show');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'korjournal-se.pdf'), bytes);
    const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (existsSync(chromium)) {
      const png = await renderFirstPage(bytes, chromium);
      expect([...png.slice(1, 4)].map((code) => String.fromCharCode(code)).join('')).toBe('PNG');
      expect(png.byteLength).toBeGreaterThan(20_000);
      writeFileSync(join(ARTIFACTS, 'korjournal-se-page1.png'), png);
    }
  }, 60_000);

  test('PDF, UK log in English, long enough for several pages with the header on each', async () => {
    const [row] = await app.database.rows<{ id: number }>(sql`select id from units where id = ${emptyUnitId}`);
    expect(row).toBeDefined();
    for (let day = 0; day < 60; day++) {
      const start = new Date(Date.UTC(2026, 0, 1 + Math.floor(day / 2), day % 2 === 0 ? 7 : 15)).toISOString();
      await addTrip(emptyUnitId, owner.accountId, start, 30, 1000 + day * 20, 20, day % 3 === 0 ? 'private' : 'business', { purpose: `Visit ${day}` });
    }
    const { response, bytes } = await download(`unitId=${emptyUnitId}&from=2026-01-01&to=2026-01-31&format=pdf&variant=uk`, { lang: 'en' });
    expect(response.status).toBe(200);
    const pdf = await readPdf(bytes);
    expect(pdf.pages).toBeGreaterThan(1);
    expect(pdf.text).toContain('Business mileage log (HMRC)');
    expect(pdf.text.split('Odometer start (miles)').length - 1).toBe(pdf.pages);
    expect(pdf.text).toContain(`Page ${pdf.pages} of ${pdf.pages}`);
    expect(pdf.text).toContain('Visit 59');
    await app.database.rows(sql`delete from trips where unit_id = ${emptyUnitId}`);
  }, 60_000);

  test('PDF column headers wrap only between words, never inside one (the UK log once printed "Busines / s")', async () => {
    const variants = [
      { variant: 'uk', lang: 'en' },
      { variant: 'se', lang: 'sv' },
      { variant: 'no', lang: 'no' },
    ];
    for (const { variant, lang } of variants) {
      const { response, bytes } = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=pdf&variant=${variant}`, { lang });
      expect(response.status).toBe(200);
      const csv = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=csv&variant=${variant}`, { lang });
      const labels = parseCsv(new TextDecoder().decode(csv.bytes.slice(3)), lang === 'en' ? ',' : ';')[8]!;
      expect(labels).toContain(variant === 'uk' ? 'Business or private' : variant === 'se' ? 'Tjänst eller privat' : 'Yrke eller privat');
      // pdf.js gives each drawn line as its own text item: a word split over two lines shows as "Busines s".
      const words = (await readPdf(bytes)).text.replace(/\s+/g, ' ');
      for (const label of labels) expect({ variant, label, whole: words.includes(label) }).toEqual({ variant, label, whole: true });
    }
  }, 60_000);

  test("the variant follows the account's country", async () => {
    await setCountry(owner.accountId, 'Norge');
    const norway = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=csv`, { lang: 'en' });
    expect(norway.response.headers.get('content-disposition')).toContain('filename="trip-log-no-ABC123');
    await setCountry(owner.accountId, 'United Kingdom');
    const uk = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=csv`, { lang: 'sv' });
    expect(uk.response.headers.get('content-disposition')).toContain('filename="korjournal-uk-ABC123');
    expect(new TextDecoder().decode(uk.bytes)).toContain('Körjournal för tjänsteresor (HMRC)');
    await setCountry(owner.accountId, 'Sverige');
    expect([marketOf('Sweden', 'en'), marketOf('NO', 'sv'), marketOf('Storbritannien', 'sv'), marketOf('', 'no'), marketOf('Danmark', 'en')]).toEqual([
      'se',
      'no',
      'uk',
      'no',
      'se',
    ]);
  });

  test("another account's unit is 404 and leaks nothing; an ordinary user without the unit is refused", async () => {
    const { response, bytes } = await download(`unitId=${otherUnitId}&from=2026-02-01&to=2026-02-28&format=csv`);
    expect(response.status).toBe(404);
    const body = new TextDecoder().decode(bytes);
    expect(JSON.parse(body).success).toBe(false);
    for (const secret of ['SECRET1', 'Secret car of B', 'Secret purpose']) expect(body).not.toContain(secret);

    const [user] = await app.database.rows<{ id: number }>(sql`
      insert into users (account_id, email, password_hash, first_name, role)
      values (${owner.accountId}, ${`plain-${owner.userId}@example.com`}, (select password_hash from users where id = ${owner.userId}), 'Plain', 'user')
      returning id`);
    expect(user).toBeDefined();
    const plain = await app.login({ email: `plain-${owner.userId}@example.com`, password: owner.password, subsiteId: 0 });
    const refused = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=pdf`, { token: plain });
    // Spec §6: an ordinary user sees only the units given to them (the unit exists in the account: 403).
    expect([403, 404]).toContain(refused.response.status);
  });

  test('a period longer than 12 months, a reversed one and a bad format are 422; no trips is 404 "no data"', async () => {
    const long = await download(`unitId=${unitId}&from=2025-01-01&to=2026-01-01&format=csv`, { lang: 'en' });
    expect(long.response.status).toBe(422);
    expect(JSON.parse(new TextDecoder().decode(long.bytes)).errors).toEqual({ to: ['The period can be at most 12 months.'] });
    const twelve = await download(`unitId=${unitId}&from=2025-03-01&to=2026-02-28&format=csv`, { lang: 'en' });
    expect(twelve.response.status).toBe(200);
    const reversed = await download(`unitId=${unitId}&from=2026-02-10&to=2026-02-01&format=csv`, { lang: 'en' });
    expect(reversed.response.status).toBe(422);
    const format = await download(`unitId=${unitId}&from=2026-02-01&to=2026-02-28&format=docx`, { lang: 'en' });
    expect(format.response.status).toBe(422);
    expect(Object.keys(JSON.parse(new TextDecoder().decode(format.bytes)).errors)).toEqual(['format']);
    const variant = await download(`unitId=${unitId}&format=csv&variant=dk`, { lang: 'en' });
    expect(variant.response.status).toBe(422);
    const empty = await download(`unitId=${emptyUnitId}&from=2026-02-01&to=2026-02-28&format=xlsx`, { lang: 'sv' });
    expect(empty.response.status).toBe(404);
    expect(JSON.parse(new TextDecoder().decode(empty.bytes)).errors).toBe('Det finns inga resor under den valda perioden.');
    const anonymous = await rawCall(app, 'GET', `/api/trips/export?unitId=${unitId}&format=csv`);
    expect(anonymous.status).toBe(401);
  });
});

/** Renders the first page of a PDF with pdf.js inside headless Chromium; returns PNG bytes. */
async function renderFirstPage(pdf: Uint8Array, executablePath: string): Promise<Uint8Array> {
  const { chromium } = await import('playwright-core');
  const { readFileSync } = await import('node:fs');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const pdfjsDir = join(dirname(require.resolve('pdfjs-dist/package.json')), 'build');
    await page.route('http://render.test/**', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      if (!file) return route.fulfill({ body: '<!doctype html><title>render</title>', contentType: 'text/html' });
      return route.fulfill({ body: readFileSync(join(pdfjsDir, file)), contentType: 'text/javascript' });
    });
    await page.goto('http://render.test/');
    const dataUrl = await page.evaluate(async (base64) => {
      const pdfjs = await import(/* @vite-ignore */ `${location.origin}/pdf.min.mjs`);
      pdfjs.GlobalWorkerOptions.workerSrc = `${location.origin}/pdf.worker.min.mjs`;
      const data = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const document = await pdfjs.getDocument({ data }).promise;
      const first = await document.getPage(1);
      const viewport = first.getViewport({ scale: 1.5 });
      const canvas = window.document.createElement('canvas');
      canvas.width = viewport.width;
      canvas.height = viewport.height;
      await first.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
      return canvas.toDataURL('image/png');
    }, Buffer.from(pdf).toString('base64'));
    return new Uint8Array(Buffer.from(dataUrl.split(',')[1]!, 'base64'));
  } finally {
    await browser.close();
  }
}
