import { and, asc, count, eq, sql } from 'drizzle-orm';
import { DEFAULT_EXPORT_BRAND } from '../../lib/export';
import { fieldError, notFound } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import { accountDirectory } from '../accounts/views';
import type { Actor } from '../auth/model';
import { iso, parseJson, type UnitCore } from './core';
import { IMAGE_MAX_BYTES, IMAGES_PER_UNIT, type ImageView, type ObjectDescriptionInput, type ObjectDescriptionView, type TheftReportInput, type TheftReportView } from './model';
import { objectDescriptionPdf, type PdfContext, type PdfImage, type PdfUnit, theftReportPdf } from './pdf';
import { type UnitRow, unitImages, unitObjectDescriptions, unitTheftReports } from './schema';

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Spec §5: PNG, JPG or JPEG; the bytes decide, the name and declared type must agree. */
export function detectImageType(bytes: Uint8Array): 'image/png' | 'image/jpeg' | null {
  if (PNG_MAGIC.every((byte, index) => bytes[index] === byte)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

/** A unit's object description, pictures and theft report, and their PDFs (spec §5). */
export function createUnitDocuments(core: UnitCore) {
  const { db, brands, publicDir, now, requirePlatform, ownUnit } = core;

  function descriptionInput(row: typeof unitObjectDescriptions.$inferSelect): ObjectDescriptionInput {
    return {
      objectType: row.objectType,
      manufacturer: row.manufacturer,
      model: row.model,
      year: row.year,
      hullNumber: row.hullNumber,
      motor: row.motor,
      motorNumber: row.motorNumber,
      horsepower: row.horsepower,
      trackerLocation: row.trackerLocation,
      dnaMarking: row.dnaMarking,
      insuranceCompany: row.insuranceCompany,
      insuranceNumber: row.insuranceNumber,
      policeDetails: row.policeDetails,
      links: parseJson(row.links) ?? [],
      serialNumber: row.serialNumber,
      productionDate: row.productionDate,
      skirtType: row.skirtType,
      lengthM: row.lengthM,
      depthM: row.depthM,
      weightKg: row.weightKg,
      ballastType: row.ballastType,
    };
  }

  function theftInput(row: typeof unitTheftReports.$inferSelect): TheftReportInput {
    return {
      theftDate: row.theftDate,
      stolenFrom: row.stolenFrom,
      whatStolen: row.whatStolen,
      ownerName: row.ownerName,
      ownerEmail: row.ownerEmail,
      ownerPhone: row.ownerPhone,
      policeStation: row.policeStation,
      policeReportNumber: row.policeReportNumber,
      insuranceClaimNumber: row.insuranceClaimNumber,
      otherInformation: row.otherInformation,
      recipients: row.recipients,
    };
  }

  async function imageList(unitId: number): Promise<ImageView[]> {
    const rows = await db
      .select({
        id: unitImages.id,
        contentType: unitImages.contentType,
        fileName: unitImages.fileName,
        size: sql<number>`octet_length(${unitImages.data})`.mapWith(Number),
        uploadedAt: unitImages.uploadedAt,
      })
      .from(unitImages)
      .where(eq(unitImages.unitId, unitId))
      .orderBy(asc(unitImages.id));
    return rows.map((row) => ({ ...row, uploadedAt: row.uploadedAt.toISOString() }));
  }

  async function imageData(unitId: number): Promise<PdfImage[]> {
    const rows = await db
      .select({ data: unitImages.data, contentType: unitImages.contentType })
      .from(unitImages)
      .where(eq(unitImages.unitId, unitId))
      .orderBy(asc(unitImages.id));
    return rows.map((row) => ({ data: new Uint8Array(row.data), contentType: row.contentType }));
  }

  async function pdfContext(actor: Actor, unit: UnitRow, language: Language): Promise<PdfContext> {
    const [account] = await db.select({ subsiteId: accountDirectory.subsiteId }).from(accountDirectory).where(eq(accountDirectory.id, unit.accountId));
    const subsiteId = account?.subsiteId ?? actor.subsiteId;
    return {
      language,
      generatedAt: now(),
      timeZone: actor.timezone || 'Europe/Stockholm',
      brand: brands ? await brands.exportBrand(subsiteId, publicDir) : DEFAULT_EXPORT_BRAND,
    };
  }

  function pdfUnit(unit: UnitRow): PdfUnit {
    return { name: unit.name, registrationNumber: unit.registrationNumber, imei: unit.imei, model: unit.model };
  }

  async function theftPdf(actor: Actor, unit: UnitRow, language: Language): Promise<{ pdf: Uint8Array; report: TheftReportInput }> {
    const [row] = await db.select().from(unitTheftReports).where(eq(unitTheftReports.unitId, unit.id));
    if (!row) throw notFound('units.theft.notSaved');
    const [description] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, unit.id));
    const report = theftInput(row);
    const pdf = await theftReportPdf(
      await pdfContext(actor, unit, language),
      pdfUnit(unit),
      report,
      description ? descriptionInput(description) : null,
      await imageData(unit.id),
    );
    return { pdf, report };
  }

  const methods = {
    // --- object description, pictures, theft report ---------------------------------------------

    async objectDescription(actor: Actor, id: number): Promise<ObjectDescriptionView | null> {
      await ownUnit(actor, id);
      const [row] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
      if (!row) return null;
      return { ...descriptionInput(row), updatedAt: row.updatedAt.toISOString(), images: await imageList(id) };
    },

    async saveObjectDescription(actor: Actor, id: number, input: ObjectDescriptionInput): Promise<ObjectDescriptionView> {
      const unit = await ownUnit(actor, id);
      const values = { ...input, updatedBy: actor.userId, updatedAt: now() };
      await db
        .insert(unitObjectDescriptions)
        .values({ unitId: id, accountId: unit.accountId, ...values })
        .onConflictDoUpdate({ target: [unitObjectDescriptions.unitId, unitObjectDescriptions.accountId], set: values });
      return (await methods.objectDescription(actor, id))!;
    },

    /** Spec §5: PNG, JPG or JPEG, at most 1 MB, at most 5 per unit, and only once the object description is saved. */
    async addImage(actor: Actor, id: number, file: { name: string; type: string; bytes: Uint8Array }): Promise<ImageView> {
      const extension = file.name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';
      const detected = detectImageType(file.bytes);
      const declaredOk = file.type === '' || file.type === 'image/png' || file.type === 'image/jpeg' || file.type === 'image/jpg';
      const extensionOk = extension === '' || ['png', 'jpg', 'jpeg'].includes(extension);
      if (!detected || !declaredOk || !extensionOk) throw fieldError('file', 'units.image.type');
      if (file.bytes.length > IMAGE_MAX_BYTES) throw fieldError('file', 'units.image.tooLarge');
      if (file.bytes.length === 0) throw fieldError('file', 'units.image.type');
      const imageId = await db.transaction(async (tx) => {
        const unit = await ownUnit(actor, id, tx, true);
        const [description] = await tx.select({ unitId: unitObjectDescriptions.unitId }).from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
        if (!description) throw fieldError('file', 'units.image.descriptionFirst');
        const [{ images } = { images: 0 }] = await tx.select({ images: count() }).from(unitImages).where(eq(unitImages.unitId, id));
        if (Number(images) >= IMAGES_PER_UNIT) throw fieldError('file', 'units.image.tooMany');
        const [row] = await tx
          .insert(unitImages)
          .values({ unitId: id, accountId: unit.accountId, contentType: detected, fileName: file.name.slice(0, 200), data: file.bytes, uploadedBy: actor.userId, uploadedAt: now() })
          .returning({ id: unitImages.id });
        return row!.id;
      });
      const list = await imageList(id);
      return list.find((image) => image.id === imageId)!;
    },

    async image(actor: Actor, id: number, imageId: number): Promise<{ contentType: string; data: Uint8Array; fileName: string }> {
      await ownUnit(actor, id);
      const [row] = await db
        .select({ contentType: unitImages.contentType, data: unitImages.data, fileName: unitImages.fileName })
        .from(unitImages)
        .where(and(eq(unitImages.id, imageId), eq(unitImages.unitId, id)));
      if (!row) throw notFound('units.image.notFound');
      return { ...row, data: new Uint8Array(row.data) };
    },

    async deleteImage(actor: Actor, id: number, imageId: number): Promise<{ deleted: true }> {
      await ownUnit(actor, id);
      const deleted = await db
        .delete(unitImages)
        .where(and(eq(unitImages.id, imageId), eq(unitImages.unitId, id)))
        .returning({ id: unitImages.id });
      if (deleted.length === 0) throw notFound('units.image.notFound');
      return { deleted: true };
    },

    async objectDescriptionPdf(actor: Actor, id: number, language: Language): Promise<{ pdf: Uint8Array; fileName: string }> {
      const unit = await ownUnit(actor, id);
      const [row] = await db.select().from(unitObjectDescriptions).where(eq(unitObjectDescriptions.unitId, id));
      if (!row) throw notFound('units.objectDescription.notSaved');
      const pdf = await objectDescriptionPdf(await pdfContext(actor, unit, language), pdfUnit(unit), descriptionInput(row), await imageData(id));
      return { pdf, fileName: `${translate(language, 'pdf.objectDescription.file')}-${unit.id}.pdf` };
    },

    async theftReport(actor: Actor, id: number): Promise<TheftReportView | null> {
      await ownUnit(actor, id);
      const [row] = await db.select().from(unitTheftReports).where(eq(unitTheftReports.unitId, id));
      if (!row) return null;
      return { ...theftInput(row), updatedAt: row.updatedAt.toISOString(), sentAt: iso(row.sentAt) };
    },

    async saveTheftReport(actor: Actor, id: number, input: TheftReportInput): Promise<TheftReportView> {
      const unit = await ownUnit(actor, id);
      const values = { ...input, updatedBy: actor.userId, updatedAt: now() };
      await db
        .insert(unitTheftReports)
        .values({ unitId: id, accountId: unit.accountId, ...values })
        .onConflictDoUpdate({ target: [unitTheftReports.unitId, unitTheftReports.accountId], set: values });
      return (await methods.theftReport(actor, id))!;
    },

    async theftReportPdf(actor: Actor, id: number, language: Language): Promise<{ pdf: Uint8Array; fileName: string }> {
      const unit = await ownUnit(actor, id);
      const { pdf } = await theftPdf(actor, unit, language);
      return { pdf, fileName: `${translate(language, 'pdf.theftReport.file')}-${unit.id}.pdf` };
    },

    /** E-mails the theft report as PDF (in the sender's language) to each of its recipients. */
    async sendTheftReport(actor: Actor, id: number, language: Language): Promise<{ sent: string[] }> {
      const { mailer } = requirePlatform();
      const unit = await ownUnit(actor, id);
      const { pdf, report } = await theftPdf(actor, unit, language);
      if (report.recipients.length === 0) throw fieldError('recipients', 'units.theft.recipientsRequired');
      const fileName = `${translate(language, 'pdf.theftReport.file')}-${unit.id}.pdf`;
      const params = { unit: unit.name, registration: unit.registrationNumber || unit.imei };
      for (const to of report.recipients) {
        await mailer.send({
          to,
          subject: translate(language, 'mail.theftReport.subject', params),
          text: translate(language, 'mail.theftReport.body', params),
          attachments: [{ filename: fileName, content: Buffer.from(pdf), contentType: 'application/pdf' }],
        });
      }
      await db.update(unitTheftReports).set({ sentAt: now() }).where(eq(unitTheftReports.unitId, id));
      return { sent: report.recipients };
    },
  };
  return { methods };
}

export type UnitDocuments = ReturnType<typeof createUnitDocuments>;
