/**
 * Object description with pictures and the theft report, both as PDF in the caller's language with the brand's
 * logo; the theft report e-mailed to its recipients. The PDFs are parsed back: text, pictures, title.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../tests/support/app';
import type { MailMessage } from '../../lib/mail';
import type { ObjectDescriptionView, TheftReportView } from './model';
import { addUnit, nextImei, pngOfSize, rawCall, readPdf, tinyJpeg, upload } from './testing';

// Generous: a loaded machine runs these API walks many times slower than an idle one.
setDefaultTimeout(120_000);

let app: TestApp;
const sent: MailMessage[] = [];
beforeAll(async () => {
  app = await createTestApp();
  // Keep what the product hands the mailer (the test SMTP server records text only), then send it as usual.
  const mailer = app.platform.mailer;
  const send = mailer.send.bind(mailer);
  mailer.send = async (message) => {
    sent.push(message);
    return send(message);
  };
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const boat = {
  objectType: 'boat',
  manufacturer: 'Buster',
  model: 'Magnum Pro',
  year: 2021,
  hullNumber: 'SE-BUS12345F021',
  motor: 'Yamaha F150',
  motorNumber: '6ML-1048576',
  horsepower: 150,
  trackerLocation: 'Under the console',
  dnaMarking: 'SmartWater 12-3456',
  insuranceCompany: 'Svedea',
  insuranceNumber: 'BT-778899',
  policeDetails: '',
  links: [{ name: 'Manufacturer page', url: 'https://buster.example/magnum' }],
  serialNumber: 'BU-2021-0042',
  productionDate: '2021-04-15',
  skirtType: 'louse_skirt_hd',
  lengthM: 6.5,
  depthM: 0.45,
  weightKg: 1250,
  ballastType: 'lead',
};

async function setup(subsiteId = 0) {
  const admin = await app.createAccount({ subsiteId });
  const token = await app.login(admin);
  const unitId = await addUnit(app, admin.accountId, nextImei('35800200'), 'Sjöstjärnan', { registrationNumber: 'ABC123', vehicleType: 'motorboat' });
  return { admin, token, unitId };
}

describe('object description and pictures', () => {
  test('saves every field with the marine extras; the hull number is 14 letters and digits', async () => {
    const { token, unitId } = await setup();
    expect((await app.call('GET', `/api/units/${unitId}/object-description`, { token })).body.data).toBeNull();
    const saved = await app.call<ObjectDescriptionView>('POST', `/api/units/${unitId}/object-description`, { token, body: boat });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ ...boat, hullNumber: 'SEBUS12345F021', images: [] });
    const badHull = await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: { ...boat, hullNumber: '1234' } });
    expect([badHull.status, badHull.body.errors]).toEqual([422, { hullNumber: ['The hull number must be 14 letters and digits.'] }]);
    const badLink = await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: { ...boat, links: [{ name: 'x', url: 'not a url' }] } });
    expect(badLink.body.errors).toEqual({ 'links.0.url': ['Enter a full web address (https://…).'] });
    const badType = await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: { ...boat, objectType: 'plane', skirtType: 'kilt' } });
    expect(Object.keys(badType.body.errors as object).sort()).toEqual(['objectType', 'skirtType']);
  });

  test('pictures: only after the description is saved; PNG, JPG or JPEG; at most 1 MB; at most 5', async () => {
    const { token, unitId } = await setup();
    const png = (name = 'boat.png', bytes = pngOfSize()) => new File([bytes], name, { type: 'image/png' });
    const early = await upload(app, token, unitId, png());
    expect([early.status, early.body.errors]).toEqual([422, { file: ['Save the object description before adding pictures.'] }]);
    await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: boat });

    const gif = await upload(app, token, unitId, new File([new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0])], 'anim.gif', { type: 'image/gif' }));
    expect([gif.status, gif.body.errors]).toEqual([422, { file: ['Pictures must be PNG, JPG or JPEG.'] }]);
    // A text file named .png is not a picture.
    expect((await upload(app, token, unitId, new File(['hello'], 'fake.png', { type: 'image/png' }))).status).toBe(422);
    const large = await upload(app, token, unitId, png('large.png', pngOfSize(1024 * 1024 + 1)));
    expect([large.status, large.body.errors]).toEqual([422, { file: ['A picture may be at most 1 MB.'] }]);
    const exact = await upload(app, token, unitId, png('exact.png', pngOfSize(1024 * 1024)));
    expect([exact.status, exact.body.data!.size]).toEqual([200, 1024 * 1024]);
    expect((await upload(app, token, unitId, new File([tinyJpeg()], 'photo.jpeg', { type: 'image/jpeg' }))).status).toBe(200);
    expect((await upload(app, token, unitId, new File([tinyJpeg()], 'photo.JPG', { type: 'image/jpeg' }))).status).toBe(200);
    expect((await upload(app, token, unitId, png('three.png'))).status).toBe(200);
    const fifth = await upload(app, token, unitId, png('four.png'));
    expect(fifth.status).toBe(200);
    const sixth = await upload(app, token, unitId, png('five.png'));
    expect([sixth.status, sixth.body.errors]).toEqual([422, { file: ['A unit can have at most 5 pictures.'] }]);

    const description = await app.call<ObjectDescriptionView>('GET', `/api/units/${unitId}/object-description`, { token });
    expect(description.body.data!.images.map((image) => [image.fileName, image.contentType])).toEqual([
      ['exact.png', 'image/png'],
      ['photo.jpeg', 'image/jpeg'],
      ['photo.JPG', 'image/jpeg'],
      ['three.png', 'image/png'],
      ['four.png', 'image/png'],
    ]);
    // The bytes come back as stored, from the database.
    const stored = await rawCall(app, 'GET', `/api/units/${unitId}/images/${fifth.body.data!.id}`, { token });
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await stored.arrayBuffer())).toEqual(pngOfSize());
    const [row] = await app.database.rows<{ n: number }>(sql`select octet_length(data)::int as n from unit_images where id = ${exact.body.data!.id}`);
    expect(row!.n).toBe(1024 * 1024);
    // Removing one makes room again.
    expect((await app.call('DELETE', `/api/units/${unitId}/images/${fifth.body.data!.id}`, { token })).status).toBe(200);
    expect((await app.call('DELETE', `/api/units/${unitId}/images/${fifth.body.data!.id}`, { token })).status).toBe(404);
    expect((await upload(app, token, unitId, png('again.png'))).status).toBe(200);
  });

  test('the object description as PDF in the caller\u2019s language, with the brand and the pictures', async () => {
    const { token, unitId } = await setup(5);
    expect((await rawCall(app, 'GET', `/api/units/${unitId}/object-description/pdf`, { token })).status).toBe(404);
    await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: boat });
    await upload(app, token, unitId, new File([pngOfSize()], 'a.png', { type: 'image/png' }));
    await upload(app, token, unitId, new File([tinyJpeg()], 'b.jpg', { type: 'image/jpeg' }));

    const swedish = await rawCall(app, 'GET', `/api/units/${unitId}/object-description/pdf`, { token, lang: 'sv' });
    expect(swedish.status).toBe(200);
    expect(swedish.headers.get('content-type')).toBe('application/pdf');
    expect(swedish.headers.get('content-disposition')).toContain(`objektbeskrivning-${unitId}.pdf`);
    const pdf = await readPdf(new Uint8Array(await swedish.arrayBuffer()));
    expect(pdf.title).toBe('Objektbeskrivning – Sjöstjärnan');
    for (const expected of ['Objektbeskrivning', 'Sjöstjärnan', 'ABC123', 'Tillverkare', 'Buster', 'Magnum Pro', 'SEBUS12345F021', 'Yamaha F150', 'Svedea', 'Luskjol HD', 'Bly', 'Båtuppgifter', 'Bilder', 'Båtvakt', 'https://buster.example/magnum']) {
      expect({ expected, found: pdf.text.includes(expected) }).toEqual({ expected, found: true });
    }
    expect(pdf.text).toContain('6,5');
    // Two pictures, plus whatever the logo is drawn with (vector: no image).
    expect(pdf.images).toBe(2);

    const english = await readPdf(new Uint8Array(await (await rawCall(app, 'GET', `/api/units/${unitId}/object-description/pdf`, { token, lang: 'en' })).arrayBuffer()));
    expect(english.text).toContain('Object description');
    expect(english.text).toContain('Manufacturer');
    expect(english.text).toContain('Louse skirt HD');
    const norwegian = await readPdf(new Uint8Array(await (await rawCall(app, 'GET', `/api/units/${unitId}/object-description/pdf`, { token, lang: 'no' })).arrayBuffer()));
    expect(norwegian.text).toContain('Objektbeskrivelse');
    expect(norwegian.text).toContain('Produsent');
  });
});

describe('theft report', () => {
  const report = {
    theftDate: '2026-02-28',
    stolenFrom: 'Gästhamnen, Sandhamn',
    whatStolen: 'Boat with engine',
    ownerName: 'Anna Andersson',
    ownerEmail: 'anna@example.com',
    ownerPhone: '+46701234567',
    policeStation: 'Polisen Nacka',
    policeReportNumber: '5000-K123456-26',
    insuranceClaimNumber: 'SV-2026-991',
    otherInformation: 'Blue canopy.',
    recipients: ['police@example.com', 'claims@example.com', 'Police@example.com'],
  };

  test('saves, renders as PDF with the object description and pictures, and e-mails it to each recipient', async () => {
    const { token, unitId } = await setup();
    expect((await app.call('POST', `/api/units/${unitId}/theft-report/send`, { token })).status).toBe(404);
    const bad = await app.call('POST', `/api/units/${unitId}/theft-report`, { token, body: { ...report, recipients: ['not-an-address'], ownerEmail: 'x' } });
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['ownerEmail', 'recipients.0']);
    const saved = await app.call<TheftReportView>('POST', `/api/units/${unitId}/theft-report`, { token, body: report });
    expect(saved.body.data).toMatchObject({ ...report, recipients: ['police@example.com', 'claims@example.com'], sentAt: null });
    await app.call('POST', `/api/units/${unitId}/object-description`, { token, body: boat });
    await upload(app, token, unitId, new File([pngOfSize()], 'a.png', { type: 'image/png' }));

    const response = await rawCall(app, 'GET', `/api/units/${unitId}/theft-report/pdf`, { token, lang: 'en' });
    const pdf = await readPdf(new Uint8Array(await response.arrayBuffer()));
    for (const expected of ['Theft report', 'Sjöstjärnan', 'Gästhamnen, Sandhamn', 'Polisen Nacka', '5000-K123456-26', 'Anna Andersson', 'SV-2026-991', 'Buster', 'Trackia']) {
      expect({ expected, found: pdf.text.includes(expected) }).toEqual({ expected, found: true });
    }
    expect(pdf.images).toBe(1);

    sent.length = 0;
    const mailed = await app.call<{ sent: string[] }>('POST', `/api/units/${unitId}/theft-report/send`, { token, headers: { 'x-lang': 'sv' } });
    expect(mailed.body.data).toEqual({ sent: ['police@example.com', 'claims@example.com'] });
    expect(sent.map((message) => message.to)).toEqual(['police@example.com', 'claims@example.com']);
    const attachment = sent[0]!.attachments![0]!;
    expect([sent[0]!.subject, attachment.filename, attachment.contentType]).toEqual(['Stöldanmälan: Sjöstjärnan (ABC123)', `stoldanmalan-${unitId}.pdf`, 'application/pdf']);
    const attached = await readPdf(new Uint8Array(attachment.content));
    expect(attached.text).toContain('Stöldanmälan');
    expect(attached.text).toContain('Polisens diarienummer');
    const received = await app.smtp.waitFor('claims@example.com');
    expect(received.subject).toBe('Stöldanmälan: Sjöstjärnan (ABC123)');
    expect((await app.call<TheftReportView>('GET', `/api/units/${unitId}/theft-report`, { token })).body.data!.sentAt).toBe(app.clock.now().toISOString());
  });

  test('sending needs at least one recipient', async () => {
    const { token, unitId } = await setup();
    await app.call('POST', `/api/units/${unitId}/theft-report`, { token, body: { ...report, recipients: [] } });
    const result = await app.call('POST', `/api/units/${unitId}/theft-report/send`, { token });
    expect([result.status, result.body.errors]).toEqual([422, { recipients: ['Add at least one recipient.'] }]);
  });
});
