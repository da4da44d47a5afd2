/** The part of the world the fleet's shown units cover, for the map's opening view and its "show all" control. */
export interface FleetBounds {
  west: number;
  south: number;
  east: number;
  north: number;
  count: number;
}

/** The bounds of the units with a position; null when none has one (the map then keeps its default place). */
export function fleetBounds(units: Iterable<{ lat: number | null; lon: number | null }>): FleetBounds | null {
  let west = Number.POSITIVE_INFINITY;
  let south = Number.POSITIVE_INFINITY;
  let east = Number.NEGATIVE_INFINITY;
  let north = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const unit of units) {
    if (unit.lat === null || unit.lon === null || !Number.isFinite(unit.lat) || !Number.isFinite(unit.lon)) continue;
    if (Math.abs(unit.lat) > 85 || Math.abs(unit.lon) > 180) continue;
    west = Math.min(west, unit.lon);
    east = Math.max(east, unit.lon);
    south = Math.min(south, unit.lat);
    north = Math.max(north, unit.lat);
    count += 1;
  }
  return count === 0 ? null : { west, south, east, north, count };
}

/** The least the map zooms in to show the fleet: one unit (or units on one spot) is shown at street level, not closer. */
export const FIT_MAX_ZOOM = 14;

/** Room kept round the fleet, in pixels (a marker and its name stay inside), less on a small screen. */
export function fitPadding(width: number, height: number): number {
  return Math.max(16, Math.min(64, Math.round(Math.min(width, height) / 10)));
}

/** What to hand `fitBounds` (or null: nothing to show). */
export function fitOf(
  units: Iterable<{ lat: number | null; lon: number | null }>,
  size: { width: number; height: number },
): { bounds: [[number, number], [number, number]]; padding: number; maxZoom: number } | null {
  const bounds = fleetBounds(units);
  if (!bounds) return null;
  return {
    bounds: [
      [bounds.west, bounds.south],
      [bounds.east, bounds.north],
    ],
    padding: fitPadding(size.width, size.height),
    maxZoom: FIT_MAX_ZOOM,
  };
}
