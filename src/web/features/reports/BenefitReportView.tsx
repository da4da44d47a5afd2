import { useTranslation } from 'react-i18next';
import type { BenefitCarRow, BenefitReimbursementRow, BenefitReport } from '../../../modules/reports/model';
import { type DataColumn, DataTable } from '../../components/DataTable';
import { useTableView } from '../../lib/table-view';
import type { ReportFormats } from './format';

const NO_VIEW = { sorting: [], hidden: [] };

/**
 * Benefit value and reimbursement (spec §1, §3 Benefit, §5, §6): per car the valuation, the months it was
 * available and their value, employer contributions and the distances from the trip log (left out for a locked
 * car the caller has no access to); the reimbursements per vehicle or driver; totals per currency; and every
 * parameter the report used, marked where it has not been checked against its source.
 */
export function BenefitReportView({ report, formats }: { report: BenefitReport; formats: ReportFormats }) {
  const { t } = useTranslation();
  const carsView = useTableView('report-benefit-cars', NO_VIEW);
  const paidView = useTableView('report-benefit-reimbursements', NO_VIEW);
  const money = formats.money;
  const problemsText = (row: BenefitCarRow) => row.problems.map((key) => t(key, { defaultValue: t('reports.benefit.problem') })).join(' ');

  const carColumns: DataColumn<BenefitCarRow>[] = [
    {
      id: 'unit',
      header: t('reports.col.vehicle'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (row) => row.unitName,
      searchText: (row) => `${row.unitName} ${row.registrationNumber}`,
      cell: (row) => (
        <>
          <div>{row.unitName}</div>
          <div className="report-sub">
            {row.registrationNumber}
            {!row.hasAccess && <span className="report-badge"> {t('reports.locked')}</span>}
          </div>
        </>
      ),
    },
    { id: 'usage', header: t('reports.col.usage'), minRem: 7, cell: (row) => t(`reports.benefit.usage.${row.carUsage}`) },
    { id: 'holder', header: t('reports.col.holder'), minRem: 8, sortValue: (row) => row.holder?.name ?? '', cell: (row) => row.holder?.name ?? '–' },
    {
      id: 'model',
      header: t('reports.col.valuation'),
      // Wide enough for the longest word of its notes ("miljöbilsnedsättning"), which must not break inside.
      minRem: 13,
      cell: (row) =>
        row.valuation ? (
          <>
            <div>{t(`reports.benefit.model.${row.valuation.model}`)}</div>
            <div className="report-sub">
              {t('reports.benefit.priceUsed', { price: money(row.valuation.priceUsed, row.currency) })}
              {row.valuation.sixYearRule ? ` · ${t('reports.benefit.sixYearRule')}` : ''}
              {row.valuation.reductionCapped ? ` · ${t('reports.benefit.reductionCapped')}` : ''}
            </div>
          </>
        ) : (
          <span className="report-problem">{problemsText(row) || t('reports.benefit.notValued')}</span>
        ),
    },
    { id: 'months', header: t('reports.col.months'), align: 'end', minRem: 5, sortValue: (row) => row.months.reduce((sum, m) => sum + m.share, 0), cell: (row) => formats.one(row.months.reduce((sum, m) => sum + m.share, 0)) },
    { id: 'value', header: t('reports.col.benefitValue'), align: 'end', canHide: false, minRem: 8, sortValue: (row) => row.benefitValue, cell: (row) => <span data-testid={`benefit-value-${row.unitId}`}>{money(row.benefitValue, row.currency)}</span> },
    {
      id: 'contributions',
      header: t('reports.col.employerContributions'),
      align: 'end',
      minRem: 8,
      sortValue: (row) => row.employerContributions,
      cell: (row) => (
        <>
          <div>{money(row.employerContributions, row.currency)}</div>
          <div className="report-sub">
            {formats.percent(row.employerContributionRate)}
            {row.employerContributionCategory !== undefined && row.employerContributionCategory !== 'standard' && ` · ${t(`reports.benefit.contributionCategory.${row.employerContributionCategory}`)}`}
          </div>
        </>
      ),
    },
    {
      id: 'distance',
      header: t('reports.col.distanceBusinessPrivate'),
      align: 'end',
      minRem: 8,
      cell: (row) => (row.distanceKm ? `${formats.km(row.distanceKm.business)} / ${formats.km(row.distanceKm.private)}` : <span className="report-sub">{t('reports.noAccessShort')}</span>),
    },
  ];

  const perDriver = report.groupBy === 'driver';
  const paidColumns: DataColumn<BenefitReimbursementRow>[] = [
    {
      id: 'who',
      header: perDriver ? t('reports.col.driver') : t('reports.col.vehicle'),
      rowHeader: true,
      canHide: false,
      minRem: 10,
      sortValue: (row) => (perDriver ? row.driverName : row.unitName) ?? '',
      cell: (row) => (perDriver ? (row.driverName ?? t('reports.noDriver')) : (row.unitName ?? '–')),
    },
    { id: 'kind', header: t('reports.col.kind'), minRem: 8, cell: (row) => t(`reports.benefit.kind.${row.kind}`) },
    {
      id: 'distance',
      header: t('reports.col.businessDistance'),
      align: 'end',
      minRem: 7,
      sortValue: (row) => row.businessKm,
      cell: (row) => (row.businessMiles !== null ? `${formats.whole(row.businessMiles)} mi` : formats.km(row.businessKm)),
    },
    { id: 'paid', header: t('reports.col.paid'), align: 'end', canHide: false, minRem: 7, sortValue: (row) => row.paid, cell: (row) => money(row.paid, row.currency) },
    { id: 'taxFree', header: t('reports.col.taxFree'), align: 'end', minRem: 7, sortValue: (row) => row.taxFree, cell: (row) => money(row.taxFree, row.currency) },
    { id: 'taxable', header: t('reports.col.taxable'), align: 'end', minRem: 7, sortValue: (row) => row.taxable, cell: (row) => money(row.taxable, row.currency) },
  ];

  const unverified = report.parameters.filter((p) => !p.verified);
  return (
    <>
      <section className="report-totals" aria-label={t('reports.totals')} data-testid="report-totals">
        {report.totals.length === 0 && <p className="report-hint">{t('reports.benefit.noCars')}</p>}
        {report.totals.map((total) => (
          <div key={total.currency} className="report-total-group">
            <div className="report-total report-total--main">
              <span className="report-total-label">{t('reports.col.benefitValue')}</span>
              <span className="report-total-value" data-testid={`benefit-total-${total.currency}`}>
                {money(total.benefitValue, total.currency)}
              </span>
            </div>
            <div className="report-total">
              <span className="report-total-label">{t('reports.col.employerContributions')}</span>
              <span className="report-total-value">{money(total.employerContributions, total.currency)}</span>
            </div>
            <div className="report-total">
              <span className="report-total-label">{t('reports.col.paid')}</span>
              <span className="report-total-value">{money(total.reimbursementPaid, total.currency)}</span>
              <span className="report-sub">{t('reports.benefit.taxFreeOf', { amount: money(total.reimbursementTaxFree, total.currency) })}</span>
            </div>
          </div>
        ))}
      </section>

      <h2 className="report-heading">{t('reports.benefit.carsHeading')}</h2>
      <DataTable
        label={t('reports.benefit.carsHeading')}
        rows={report.cars}
        columns={carColumns}
        rowId={(row) => String(row.unitId)}
        view={carsView}
        rowProps={() => ({ 'data-testid': 'benefit-car' })}
        empty={<p className="report-hint">{t('reports.benefit.noCars')}</p>}
        testId="benefit-cars"
      />

      <h2 className="report-heading">{t('reports.benefit.reimbursementHeading')}</h2>
      <DataTable
        label={t('reports.benefit.reimbursementHeading')}
        rows={report.reimbursements}
        columns={paidColumns}
        rowId={(row) => `${row.unitId ?? ''}-${row.driverId ?? ''}-${row.kind}-${row.currency}`}
        view={paidView}
        empty={<p className="report-hint">{t('reports.benefit.noReimbursements')}</p>}
        testId="benefit-reimbursements"
      />

      {report.parameters.length > 0 && (
        <details className="report-parameters" data-testid="benefit-parameters">
          <summary>{t('reports.benefit.parameters', { count: report.parameters.length })}</summary>
          {unverified.length > 0 && <p className="report-hint">{t('reports.benefit.unverified', { count: unverified.length })}</p>}
          <ul>
            {report.parameters.map((p) => (
              <li key={`${p.country}-${p.year}-${p.key}`}>
                {p.country} {p.year} · <code>{p.key}</code>: {formats.exact(p.value)}
                {!p.verified && <span className="report-badge"> {t('reports.benefit.unverifiedBadge')}</span>}
                <span className="report-sub"> ({p.source})</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
