import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { CallResult, TestApp } from '../../../tests/support/app';

/** Helpers shared by the unit tests (API calls the way the web app makes them, and fixtures). */

let imeiCounter = 0;
/** A fresh IMEI per call; `prefix` keeps each test file's IMEIs apart. */
export function nextImei(prefix: string): string {
  imeiCounter += 1;
  return `${prefix}${String(imeiCounter).padStart(15 - prefix.length, '0')}`;
}

/** Adds an IMEI to stock and a unit for it directly in the database. */
export async function addUnit(
  app: TestApp,
  accountId: number,
  imei: string,
  name: string,
  extra: { registrationNumber?: string; protocol?: string; model?: string; deviceKind?: 'triplog' | 'battery'; vehicleType?: string; grant?: boolean } = {},
): Promise<number> {
  await app.services.units.addStock(
    { imeis: [imei], model: extra.model ?? 'FMB920', protocol: (extra.protocol ?? 'teltonika') as 'teltonika', subsiteID: null, deviceKind: extra.deviceKind },
    null,
  );
  const [row] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name, registration_number, model, protocol, device_kind, vehicle_type)
    values (${accountId}, ${imei}, ${name}, ${extra.registrationNumber ?? ''}, ${extra.model ?? 'FMB920'}, ${extra.protocol ?? 'teltonika'},
            ${extra.deviceKind ?? 'triplog'}, ${extra.vehicleType ?? 'passenger_car'})
    returning id`);
  // Spec §6: ordinary users see only units given to them; the fixture gives the new unit to the account's
  // ordinary users, as their administrator would (pass grant: false to test the rule itself).
  if (extra.grant !== false) {
    await app.database.rows(sql`
      insert into unit_access (unit_id, user_id, account_id) select ${row!.id}, id, account_id from users where account_id = ${accountId} and role = 'user'`);
  }
  return row!.id;
}

/** The tracker's latest state as the ingest writer keeps it. */
export async function setState(
  app: TestApp,
  unitId: number,
  state: { lat?: number; lon?: number; lastSeen?: Date; speed?: number; ignition?: boolean | null; odometerM?: number | null; normalized?: Record<string, unknown> },
) {
  const seen = (state.lastSeen ?? app.clock.now()).toISOString();
  const normalized = JSON.stringify(state.normalized ?? {});
  await app.database.rows(sql`
    insert into unit_state (unit_id, time, geom, speed_kmh, valid, ignition, odometer_m, normalized, last_seen)
    values (${unitId}, ${seen}, ST_SetSRID(ST_MakePoint(${state.lon ?? 18.0686}, ${state.lat ?? 59.3293}), 4326), ${state.speed ?? 0}, true,
            ${state.ignition ?? null}, ${state.odometerM ?? null}, ${normalized}::jsonb, ${seen})
    on conflict (unit_id) do update set time = excluded.time, geom = excluded.geom, speed_kmh = excluded.speed_kmh,
      ignition = excluded.ignition, odometer_m = excluded.odometer_m, normalized = excluded.normalized, last_seen = excluded.last_seen`);
}

/** A request whose answer is not JSON (PDFs, pictures) or whose body is multipart. */
export async function rawCall(
  app: TestApp,
  method: string,
  path: string,
  options: { token?: string; body?: BodyInit; lang?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'x-lang': options.lang ?? 'en' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return app.api.handle(new Request(`http://localhost${path}`, { method, headers, body: options.body }));
}

export async function upload(app: TestApp, token: string, unitId: number, file: File): Promise<CallResult<{ id: number; size: number }>> {
  const form = new FormData();
  form.append('file', file);
  const response = await rawCall(app, 'POST', `/api/units/${unitId}/images`, { token, body: form });
  return { status: response.status, body: (await response.json()) as CallResult<{ id: number; size: number }>['body'], headers: response.headers };
}

/** A small valid PNG (1×1, red) padded with an ignored chunk to the wanted size. */
export function pngOfSize(bytes = 0): Uint8Array<ArrayBuffer> {
  const base = Uint8Array.from(
    atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'),
    (char) => char.charCodeAt(0),
  );
  if (bytes <= base.length) return base;
  // Insert a private ancillary chunk ("prVt") before IEND: decoders skip it, the size grows.
  const iendAt = base.length - 12;
  const payload = bytes - base.length - 12;
  const chunk = new Uint8Array(12 + payload);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, payload);
  chunk.set([0x70, 0x72, 0x56, 0x74], 4);
  const out = new Uint8Array(bytes);
  out.set(base.subarray(0, iendAt), 0);
  out.set(chunk, iendAt);
  out.set(base.subarray(iendAt), iendAt + chunk.length);
  return out;
}

/** A small valid JPEG (16×16 baseline, 543 bytes). */
export function tinyJpeg(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob('/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z'), (char) => char.charCodeAt(0));
}

const pdfjsRoot = dirname(require.resolve('pdfjs-dist/package.json'));

/** Parses a PDF: its pages' text and how many pictures each page paints. */
export async function readPdf(bytes: Uint8Array): Promise<{ pages: number; text: string; images: number; title: string | null }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: `${join(pdfjsRoot, 'standard_fonts')}/`,
    verbosity: 0,
  });
  const document = await task.promise;
  const texts: string[] = [];
  let images = 0;
  for (let number = 1; number <= document.numPages; number++) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    const operators = await page.getOperatorList();
    images += operators.fnArray.filter((fn) => fn === pdfjs.OPS.paintImageXObject || fn === pdfjs.OPS.paintInlineImageXObject).length;
  }
  const metadata = await document.getMetadata();
  const info = metadata.info as { Title?: string } | undefined;
  const result = { pages: document.numPages, text: texts.join('\n'), images, title: info?.Title ?? null };
  await task.destroy();
  return result;
}
