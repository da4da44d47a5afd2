import type { Picture } from './pictures';
import type { UnitStatus } from '../../../modules/tracking/model';

/**
 * Marker symbols and colours. A unit's symbol follows its vehicle type (spec §3); its colour tells
 * moving, parked or offline. The icons are drawn once into a canvas atlas at start, so the map needs
 * no image files and works offline.
 */

/** Spec §3: the vehicle types a unit may have. */
export const VEHICLE_TYPES = [
  'passenger_car',
  'lorry',
  'bus',
  'motorcycle',
  'moped',
  'cycle',
  'off_road',
  'agricultural',
  'forestry',
  'heavy_equipment',
  'trailer',
  'motorboat',
  'sailing_boat',
  'tool',
  'others',
] as const;

/** Spec §3: the marker symbols a unit may be given (the units module's MARKER_ICONS). */
export const MARKER_SYMBOLS = ['car', 'van', 'truck', 'bus', 'motorcycle', 'boat', 'tractor', 'excavator', 'trailer', 'bicycle', 'tool', 'pin'] as const;
export type MarkerSymbol = (typeof MARKER_SYMBOLS)[number];

/** The unit's own symbol; an unknown one (a newer server) shows as a pin. */
export function markerSymbol(icon: string): MarkerSymbol {
  return (MARKER_SYMBOLS as readonly string[]).includes(icon) ? (icon as MarkerSymbol) : 'pin';
}

const HEX_COLOR = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;
const colorCache = new Map<string, [number, number, number]>();
/** '#rrggbb' as RGB; the default marker blue when malformed. */
export function rgbOf(hex: string): [number, number, number] {
  let rgb = colorCache.get(hex);
  if (!rgb) {
    const match = HEX_COLOR.exec(hex);
    rgb = match ? [Number.parseInt(match[1]!, 16), Number.parseInt(match[2]!, 16), Number.parseInt(match[3]!, 16)] : [11, 92, 173];
    colorCache.set(hex, rgb);
  }
  return rgb;
}

export const STATUS_COLORS: Record<UnitStatus, [number, number, number]> = {
  moving: [30, 125, 52],
  parked: [21, 94, 173],
  offline: [107, 114, 128],
};

export function cssColor([r, g, b]: [number, number, number]): string {
  return `rgb(${r} ${g} ${b})`;
}

const WHEEL = (x: number, y: number) => `M${x} ${y + 1.5}a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z`;
const BIKE = ['M6 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M18 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M6 15l4-7h5l3 7', 'M10 8l2 7'];
const MACHINE = ['M3 14h12v4H3z', 'M6 14V9h5l2 5', 'M15 12l4-6 2 1', 'M19 6l2 7'];

/** 24×24 outline glyphs, drawn white inside the badge. */
const GLYPHS: Record<MarkerSymbol, string[]> = {
  car: ['M4 14l2-5.5h12l2 5.5v4H4z', 'M7.5 18v2', 'M16.5 18v2', 'M4 14h16'],
  van: ['M3 6h11l4 5h3v6H3z', 'M14 6v5h4', WHEEL(7, 17.5), WHEEL(17, 17.5)],
  truck: ['M2 6h11v10H2z', 'M13 9h5l3 4v3h-8z', WHEEL(6, 17.5), WHEEL(17, 17.5)],
  bus: ['M5 3h14v15H5z', 'M5 11h14', 'M8 21v-3', 'M16 21v-3', 'M8 7h8'],
  motorcycle: ['M5 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M19 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M5 15h6l4-5h3l1 5', 'M13 8h3'],
  boat: ['M3 15h18l-3 5H6z', 'M12 3v12', 'M12 4l6 9h-6'],
  tractor: MACHINE,
  excavator: ['M3 16h11v3H3z', 'M5 16v-4h6v4', 'M11 12l5-7 4 3', 'M20 8l-1 5h-3'],
  trailer: ['M3 6h15v9H3z', 'M18 13h4', WHEEL(8, 16.5), WHEEL(13, 16.5)],
  bicycle: BIKE,
  tool: ['M14 4a5 5 0 0 0-4.5 7L3 17.5 6.5 21l6.5-6.5A5 5 0 0 0 20 10l-3 1-3-3 1-3z'],
  pin: ['M12 21s-6-6.5-6-11a6 6 0 0 1 12 0c0 4.5-6 11-6 11z', 'M12 12.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z'],
};

export const BADGE_SIZE = 40;
export const ARROW_SIZE = 64;

export interface IconAtlas {
  canvas: HTMLCanvasElement;
  mapping: Record<string, { x: number; y: number; width: number; height: number; anchorY: number; mask: boolean }>;
}

const iconAtlases = new Map<number, IconAtlas>();

/** The icon atlas at this pixel ratio, drawn once for the page (the fleet's headings and the replay marker use it). */
export function sharedIconAtlas(pixelRatio: number): IconAtlas {
  let atlas = iconAtlases.get(pixelRatio);
  if (!atlas) {
    atlas = buildIconAtlas(pixelRatio);
    iconAtlases.set(pixelRatio, atlas);
  }
  return atlas;
}

/**
 * The sprites a unit's badge is made of: the white glyph of its symbol inside a ring telling its status (moving,
 * parked, offline), 12 × 3 cells, which `unitBadgePicture` lays over a disc in the unit's own colour; and the
 * heading arrow, drawn as a mask (coloured per unit).
 */
export function buildIconAtlas(pixelRatio = 2): IconAtlas {
  const symbols = [...MARKER_SYMBOLS];
  const statuses = Object.keys(STATUS_COLORS) as UnitStatus[];
  const cell = BADGE_SIZE * pixelRatio;
  const arrow = ARROW_SIZE * pixelRatio;
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(cell * symbols.length, arrow);
  canvas.height = cell * statuses.length + arrow;
  const ctx = canvas.getContext('2d');
  const mapping: IconAtlas['mapping'] = {};
  if (!ctx) return { canvas, mapping };
  const r = cell / 2;
  statuses.forEach((status, row) => {
    symbols.forEach((symbol, column) => {
      const x = column * cell;
      const y = row * cell;
      ctx.save();
      ctx.translate(x, y);
      // Status ring: white separates it from the disc's colour, whatever that is.
      ctx.beginPath();
      ctx.arc(r, r, r - 3 * pixelRatio, 0, Math.PI * 2);
      ctx.lineWidth = 4 * pixelRatio;
      ctx.strokeStyle = cssColor(STATUS_COLORS[status]);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(r, r, r - 5.5 * pixelRatio, 0, Math.PI * 2);
      ctx.lineWidth = 1.2 * pixelRatio;
      ctx.strokeStyle = '#ffffff';
      ctx.stroke();
      // The glyph: 24 units scaled into the inner 56 % of the badge.
      const scale = (cell * 0.56) / 24;
      ctx.translate(cell * 0.22, cell * 0.22);
      ctx.scale(scale, scale);
      ctx.lineWidth = 2;
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      ctx.strokeStyle = '#ffffff';
      for (const path of GLYPHS[symbol]) ctx.stroke(new Path2D(path));
      ctx.restore();
      mapping[`${symbol}:${status}`] = { x, y, width: cell, height: cell, anchorY: cell / 2, mask: false };
    });
  });
  const ay = cell * statuses.length;
  // Heading arrow: a wedge at the top of a square whose centre is the unit, drawn as a mask (coloured per unit).
  ctx.save();
  ctx.translate(0, ay);
  ctx.beginPath();
  ctx.moveTo(arrow / 2, 1 * pixelRatio);
  ctx.lineTo(arrow / 2 + 10 * pixelRatio, 17 * pixelRatio);
  ctx.lineTo(arrow / 2, 13 * pixelRatio);
  ctx.lineTo(arrow / 2 - 10 * pixelRatio, 17 * pixelRatio);
  ctx.closePath();
  ctx.fillStyle = '#000000';
  ctx.fill();
  ctx.restore();
  mapping.heading = { x: 0, y: ay, width: arrow, height: arrow, anchorY: arrow / 2, mask: true };
  return { canvas, mapping };
}

/**
 * A unit's badge as one picture: the disc in the unit's own colour (faded when offline) under the status ring
 * and glyph of `atlas`. One picture per colour, symbol and status in use.
 */
export function unitBadgePicture(unit: { color: string; markerIcon: string; status: UnitStatus }, atlas: IconAtlas): Picture {
  const symbol = markerSymbol(unit.markerIcon);
  const source = atlas.mapping[`${symbol}:${unit.status}`];
  return {
    key: `unit:${unit.color}:${symbol}:${unit.status}`,
    width: BADGE_SIZE,
    height: BADGE_SIZE,
    draw(ctx, width, height) {
      const [r, g, b] = rgbOf(unit.color);
      ctx.beginPath();
      ctx.arc(width / 2, height / 2, width / 2 - 3, 0, Math.PI * 2);
      ctx.fillStyle = `rgba(${r}, ${g}, ${b}, ${unit.status === 'offline' ? 150 / 255 : 1})`;
      ctx.fill();
      if (source) ctx.drawImage(atlas.canvas, source.x, source.y, source.width, source.height, 0, 0, width, height);
    },
  };
}

/** A cluster's badge: a blue disc sized by its count, with the count (thousands as "12k") in white. */
export function clusterPicture(count: number): Picture {
  const radius = Math.min(34, 14 + Math.log2(count) * 2.6);
  const text = count >= 10_000 ? `${Math.round(count / 1000)}k` : String(count);
  const size = Math.ceil(radius * 2 + 4);
  return {
    key: `cluster:${text}:${radius.toFixed(1)}`,
    width: size,
    height: size,
    draw(ctx, width, height) {
      ctx.beginPath();
      ctx.arc(width / 2, height / 2, radius, 0, Math.PI * 2);
      ctx.fillStyle = 'rgba(11, 92, 173, 0.84)';
      ctx.fill();
      ctx.lineWidth = 2;
      ctx.strokeStyle = '#ffffff';
      ctx.stroke();
      ctx.font = '700 13px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#ffffff';
      ctx.fillText(text, width / 2, height / 2 + 0.5);
    },
  };
}
