/**
 * The live map's cluster settings, shared by the portal's clustering worker and `bench:map`'s baseline (MapLibre's own
 * clustering), so both group the fleet alike.
 */

/** Above this zoom every unit is drawn on its own. */
export const CLUSTER_MAX_ZOOM = 15;
/** Units within this many pixels of each other are grouped. */
export const CLUSTER_RADIUS_PX = 56;
/** A group of fewer units is drawn as its units. */
export const CLUSTER_MIN_POINTS = 3;
