import { Elysia } from 'elysia';
import { type ExportBrand, type ExportColumn, type ExportDocument, type ExportFact, exportResponse, number, text } from '../../lib/export';
import { ok } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import { authGuard, requireActor } from '../auth';
import type { AuthService } from '../auth/service';
import type { BenefitService } from './benefit';
import { benefitCarParamsSchema, benefitCarSchema, benefitExportQuerySchema, benefitQuerySchema, type BenefitReport } from './model';

/**
 * The benefit report as one table for the export kit: a row per benefit car (its value and employer contributions in
 * the period) and a row per reimbursement (paid, tax free, taxable); totals per currency; the parameters used, with
 * the unverified ones marked, as notes.
 */
export function buildBenefitDocument(report: BenefitReport, language: Language, timeZone: string, generatedAt: Date, brand: ExportBrand): ExportDocument {
  const t = (key: string, params?: Record<string, string | number>) => translate(language, key, params);
  const columns: ExportColumn[] = [
    { label: t('benefitExport.col.kind'), type: 'text', width: 14 },
    { label: t('benefitExport.col.vehicle'), type: 'text', width: 16 },
    { label: t('benefitExport.col.registrationNumber'), type: 'text', width: 10 },
    { label: t('benefitExport.col.driver'), type: 'text', width: 14 },
    { label: t('benefitExport.col.currency'), type: 'text', width: 6 },
    { label: t('benefitExport.col.months'), type: 'number', width: 6 },
    { label: t('benefitExport.col.businessKm'), type: 'number', decimals: 1, unit: 'km', width: 9 },
    { label: t('benefitExport.col.benefitValue'), type: 'number', decimals: 2, width: 11 },
    { label: t('benefitExport.col.employerContributions'), type: 'number', decimals: 2, width: 11 },
    { label: t('benefitExport.col.paid'), type: 'number', decimals: 2, width: 10 },
    { label: t('benefitExport.col.taxFree'), type: 'number', decimals: 2, width: 10 },
    { label: t('benefitExport.col.taxable'), type: 'number', decimals: 2, width: 10 },
  ];
  const rows = [
    ...report.cars
      .filter((car) => car.carUsage === 'benefit')
      .map((car) => [
        t('benefitExport.kind.benefit'),
        car.unitName,
        car.registrationNumber,
        car.holder?.name ?? null,
        car.currency,
        car.months.length,
        car.distanceKm?.business ?? null,
        car.benefitValue,
        car.employerContributions,
        null,
        null,
        null,
      ]),
    ...report.reimbursements.map((row) => [
      t(`benefitExport.kind.${row.kind}`),
      row.unitName,
      row.unitId === null ? null : (report.cars.find((car) => car.unitId === row.unitId)?.registrationNumber ?? null),
      row.driverName,
      row.currency,
      null,
      row.businessKm,
      null,
      null,
      row.paid,
      row.taxFree,
      row.taxable,
    ]),
  ];
  const totals: ExportFact[] = report.totals.flatMap((total) => [
    { label: t('benefitExport.total.benefitValue'), unit: total.currency, value: number(total.benefitValue, 2) },
    { label: t('benefitExport.total.employerContributions'), unit: total.currency, value: number(total.employerContributions, 2) },
    { label: t('benefitExport.total.paid'), unit: total.currency, value: number(total.reimbursementPaid, 2) },
    { label: t('benefitExport.total.taxFree'), unit: total.currency, value: number(total.reimbursementTaxFree, 2) },
    { label: t('benefitExport.total.taxable'), unit: total.currency, value: number(total.reimbursementTaxable, 2) },
  ]);
  const notes = report.parameters.map(
    (parameter) =>
      `${parameter.country} ${parameter.year} ${parameter.key} = ${parameter.value}${parameter.verified ? '' : ` (${t('benefitExport.unverified')})`}${parameter.source ? ` – ${parameter.source}` : ''}`,
  );
  const title = t('benefitExport.title');
  const period = `${report.from} – ${report.to}`;
  return {
    title,
    subject: period,
    language,
    timeZone,
    generatedAt,
    brand,
    facts: [
      { label: t('benefitExport.meta.period'), value: text(period) },
      { label: t('benefitExport.meta.groupBy'), value: text(t(`benefitExport.groupBy.${report.groupBy}`)) },
    ],
    columns,
    rows,
    totals,
    notes: [
      // Swedish employer contributions at a special rate (older or young employees) are named per car.
      ...report.cars
        .filter((car) => car.carUsage === 'benefit' && car.employerContributionCategory !== 'standard')
        .map((car) => t(`benefitExport.contributionCategory.${car.employerContributionCategory}`, { car: car.unitName, rate: `${Math.round(car.employerContributionRate * 10_000) / 100} %` })),
      ...(notes.length > 0 ? [t('benefitExport.parameters'), ...notes] : []),
    ],
    footer: [title, period],
  };
}

const security = [{ bearer: [] }];

/** The benefit value and reimbursement API (mounted under /api/reports). */
export function benefitRoutes(benefit: BenefitService, auth: AuthService) {
  return new Elysia({ prefix: '/api/reports/benefit', tags: ['reports'] })
    .use(authGuard(auth))
    .get('', async ({ actor, query }) => ok(await benefit.report(requireActor(actor), query)), {
      query: benefitQuerySchema,
      detail: {
        summary:
          "Car benefit value and reimbursement of the caller's benefit and private cars (named units, a department, a driver or the fleet) for whole months (at most 12): the value per car and month under Swedish, Norwegian or UK rules, employer contributions, mileage allowances and fuel reimbursements per vehicle or driver, and the parameters used with whether each is verified. A locked car without access shows its benefit value only (spec §6)",
        security,
      },
    })
    .get(
      '/export',
      async ({ actor, query, headers }) => {
        const file = await benefit.exportFile(requireActor(actor), query, headers);
        return exportResponse(file.document, file.format, file.fileName);
      },
      {
        query: benefitExportQuerySchema,
        detail: { summary: 'The benefit value and reimbursement report as a file: format pdf, xlsx or csv (same filters as GET /api/reports/benefit)', security },
      },
    )
    .get('/parameters', async () => ok(await benefit.parameters()), {
      detail: { summary: 'The benefit formulas’ parameters per country and year, with their source and whether each is verified', security },
    })
    .get('/cars/:unitId', async ({ actor, params }) => ok(await benefit.car(requireActor(actor), params.unitId)), {
      params: benefitCarParamsSchema,
      detail: { summary: "A unit's benefit-car valuation details (list price, equipment, first taxable day, country, holder, availability)", security },
    })
    .put('/cars/:unitId', async ({ actor, params, body }) => ok(await benefit.saveCar(requireActor(actor), params.unitId, body)), {
      params: benefitCarParamsSchema,
      body: benefitCarSchema,
      detail: { summary: "Saves a unit's benefit-car valuation details (administrators)", security },
    });
}
