import type { Database } from '../../lib/db/client';
import { createUnitAccess } from './access';
import { createUnitCore, type UnitServiceDeps } from './core';
import { createUnitDocuments } from './documents';
import { createUnitHours } from './hours';
import { createUnitListing } from './listing';
import { createUnitOnboarding } from './onboarding';
import { createUnitSections } from './sections';
import { createSettingMethods, createSettingQueue } from './settings';
import { createUnitStock } from './stock';
import { createTheftMode } from './theft';

export type { UnitLiveState, UnitServiceDeps } from './core';
export { detectImageType } from './documents';
export { MAX_ENGINE_GAP_S } from './hours';
/** The brand a PDF is drawn with (the trip log's exports draw it as the unit documents do). */
export type { PdfBrand } from './pdf';
export type { ImeiCheck, ImeiRefusal, KnownUnit, StockRow } from './stock';

/**
 * Units (scoped by the caller's account), their edit sections, the unit list, and the tracker stock that
 * registration and add-terminal draw from. Methods that take `executor` run inside a caller's transaction
 * (registration) when given one.
 */
export function createUnitService(db: Database, deps: UnitServiceDeps = {}) {
  // Each concern is built from those it reads; the service is their methods side by side.
  const core = createUnitCore(db, deps);
  const hours = createUnitHours(core);
  const queue = createSettingQueue(core);
  const theft = createTheftMode(core, queue);
  const listing = createUnitListing(core, hours, queue, theft);
  return {
    ...hours.methods,
    ...listing.methods,
    ...createUnitAccess(core, listing).methods,
    ...createUnitSections(core, hours, queue, listing).methods,
    ...createSettingMethods(core, queue, listing).methods,
    ...createUnitDocuments(core).methods,
    ...createUnitStock(core, queue, listing).methods,
    ...createUnitOnboarding(core, hours, listing).methods,
    ...theft.methods,
  };
}

export type UnitService = ReturnType<typeof createUnitService>;
