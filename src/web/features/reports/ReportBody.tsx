import type { BenefitReport, Co2Report, EcoReport, EnvironmentReport, FuelReport, SummaryReport } from '../../../modules/reports/model';
import { BenefitReportView } from './BenefitReportView';
import { EcoReportView } from './EcoReportView';
import { Co2ReportView, EnvironmentReportView } from './EmissionsReportViews';
import type { ReportFormats } from './format';
import { FuelReportView } from './FuelReportView';
import type { ReportKind } from './reports';
import { SummaryReportView } from './SummaryReportView';

/** The report's own view of the server's answer for the report chosen. */
export function ReportBody({ kind, data, formats }: { kind: ReportKind; data: unknown; formats: ReportFormats }) {
  switch (kind) {
    case 'summary':
      return <SummaryReportView report={data as SummaryReport} formats={formats} />;
    case 'benefit':
      return <BenefitReportView report={data as BenefitReport} formats={formats} />;
    case 'eco':
      return <EcoReportView report={data as EcoReport} formats={formats} />;
    case 'fuel':
      return <FuelReportView report={data as FuelReport} formats={formats} />;
    case 'co2':
      return <Co2ReportView report={data as Co2Report} formats={formats} />;
    case 'environment':
      return <EnvironmentReportView report={data as EnvironmentReport} formats={formats} />;
  }
}
