import { forbidden } from '../../lib/http';
import type { Actor } from '../auth/model';
import type { UnitView } from '../units/model';
import type { UnitService } from '../units/service';

/** The reports a user sees of a locked benefit or private car without access (spec §6). */
export const REPORTS_WITHOUT_ACCESS = ['benefit', 'summary'] as const;

/** Whether `report` may show a unit the caller has no access to (spec §6: only benefit value and summary). */
export function reportShowsUnit(report: string, unit: Pick<UnitView, 'HasAccess'>): boolean {
  return unit.HasAccess || (REPORTS_WITHOUT_ACCESS as readonly string[]).includes(report);
}

/**
 * Spec §6 on the server, for every report: the units a report names, as the caller sees them. Another account's
 * unit (or one not given to an ordinary user) is a 404 like a missing one; a locked benefit or private car that the
 * caller has no access to is a 403 for every report but the benefit value and the summary.
 */
export async function reportUnits(units: Pick<UnitService, 'visible'>, actor: Actor, report: string, unitIds: readonly number[]): Promise<UnitView[]> {
  const views: UnitView[] = [];
  for (const id of unitIds) {
    const unit = await units.visible(actor, id);
    if (!reportShowsUnit(report, unit)) throw forbidden('reports.access.locked');
    views.push(unit);
  }
  return views;
}

/** For a fleet report (no units named): the caller's units the report may show; locked cars without access drop out. */
export function fleetReportUnits<T extends Pick<UnitView, 'HasAccess'>>(report: string, list: readonly T[]): T[] {
  return list.filter((unit) => reportShowsUnit(report, unit));
}
