import type { Picture } from './pictures';
import { BADGE_SIZE } from './symbols';

/** Unit names on the map: size and distance below the marker (px). */
export const LABEL_SIZE = 12;
export const LABEL_OFFSET = BADGE_SIZE / 2 + 10;

interface Labelled {
  id: number;
  name: string;
  lat: number | null;
  lon: number | null;
}

/**
 * The units whose names fit: each label claims its box on screen (below its marker), the selected unit's first,
 * then in list order; a label that would overlap one already placed is left out, as maps do, instead of
 * stacking unreadable text. `project` gives a position's screen pixel. Panning keeps screen distances, so the
 * map redoes this only when its layers are rebuilt (data, or a half zoom step).
 */
export function placeLabels<T extends Labelled>(project: (lngLat: [number, number]) => { x: number; y: number }, units: T[], selectedId: number | null): T[] {
  const ordered = selectedId === null ? units : [...units].sort((a, b) => Number(b.id === selectedId) - Number(a.id === selectedId));
  const placed: Array<[number, number, number, number]> = [];
  const out: T[] = [];
  for (const unit of ordered) {
    if (unit.lat === null || unit.lon === null) continue;
    const at = project([unit.lon, unit.lat]);
    const halfWidth = labelWidth(unit.name) / 2;
    const box: [number, number, number, number] = [at.x - halfWidth, at.y + LABEL_OFFSET - 9, at.x + halfWidth, at.y + LABEL_OFFSET + 9];
    if (placed.some((other) => box[0] < other[2] && box[2] > other[0] && box[1] < other[3] && box[3] > other[1])) continue;
    placed.push(box);
    out.push(unit);
  }
  return out;
}

/** A label picture's height on screen (px): the text and its halo. */
export const LABEL_HEIGHT = 18;
const LABEL_FONT = `600 ${LABEL_SIZE}px system-ui, sans-serif`;

let measuring: CanvasRenderingContext2D | null = null;
/** Measured once per name: placement and the picture both ask, on every rebuild of the layers. */
const widths = new Map<string, number>();
/** A name's picture width (px): the text as the browser measures it (without one, ~0.62 em a character) and the halo. */
function labelWidth(name: string): number {
  const known = widths.get(name);
  if (known !== undefined) return known;
  if (!measuring && typeof document !== 'undefined') measuring = document.createElement('canvas').getContext('2d');
  let width = Math.ceil(name.length * LABEL_SIZE * 0.62 + 8);
  if (measuring) {
    measuring.font = LABEL_FONT;
    width = Math.ceil(measuring.measureText(name).width + 8);
  }
  widths.set(name, width);
  return width;
}

/** A unit's name as a picture: dark text with a white halo, hanging LABEL_OFFSET below the unit's position. */
export function labelPicture(name: string): Picture {
  return {
    key: `label:${name}`,
    width: labelWidth(name),
    height: LABEL_HEIGHT,
    anchorY: LABEL_HEIGHT / 2 - LABEL_OFFSET,
    draw(ctx, width, height) {
      ctx.font = LABEL_FONT;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.lineJoin = 'round';
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgba(255, 255, 255, 0.92)';
      ctx.fillStyle = '#1b2430';
      ctx.strokeText(name, width / 2, height / 2);
      ctx.fillText(name, width / 2, height / 2);
    },
  };
}
