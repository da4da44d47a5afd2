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

export type MarkerSymbol = 'car' | 'truck' | 'bus' | 'bike' | 'machine' | 'trailer' | 'boat' | 'tool' | 'other';

const SYMBOL_OF: Record<string, MarkerSymbol> = {
  passenger_car: 'car',
  off_road: 'car',
  lorry: 'truck',
  bus: 'bus',
  motorcycle: 'bike',
  moped: 'bike',
  cycle: 'bike',
  agricultural: 'machine',
  forestry: 'machine',
  heavy_equipment: 'machine',
  trailer: 'trailer',
  motorboat: 'boat',
  sailing_boat: 'boat',
  tool: 'tool',
};

export function markerSymbol(vehicleType: string): MarkerSymbol {
  return SYMBOL_OF[vehicleType] ?? 'other';
}

export const STATUS_COLORS: Record<UnitStatus, [number, number, number]> = {
  moving: [30, 125, 52],
  parked: [21, 94, 173],
  offline: [107, 114, 128],
};

export function cssColor([r, g, b]: [number, number, number]): string {
  return `rgb(${r} ${g} ${b})`;
}

/** 24×24 outline glyphs, drawn white inside the badge. */
const GLYPHS: Record<MarkerSymbol, string[]> = {
  car: ['M4 14l2-5.5h12l2 5.5v4H4z', 'M7.5 18v2', 'M16.5 18v2', 'M4 14h16'],
  truck: ['M2 6h11v10H2z', 'M13 9h5l3 4v3h-8z', 'M6 19a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z', 'M17 19a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z'],
  bus: ['M5 3h14v15H5z', 'M5 11h14', 'M8 21v-3', 'M16 21v-3', 'M8 7h8'],
  bike: ['M6 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M18 18a3 3 0 1 0 0-6 3 3 0 0 0 0 6z', 'M6 15l4-7h5l3 7', 'M10 8l2 7'],
  machine: ['M3 14h12v4H3z', 'M6 14V9h5l2 5', 'M15 12l4-6 2 1', 'M19 6l2 7'],
  trailer: ['M3 6h15v9H3z', 'M18 13h4', 'M8 18a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z', 'M13 18a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3z'],
  boat: ['M3 15h18l-3 5H6z', 'M12 3v12', 'M12 4l6 9h-6'],
  tool: ['M14 4a5 5 0 0 0-4.5 7L3 17.5 6.5 21l6.5-6.5A5 5 0 0 0 20 10l-3 1-3-3 1-3z'],
  other: ['M12 3l8 4.5v9L12 21l-8-4.5v-9z', 'M12 12l8-4.5', 'M12 12v9', 'M12 12 4 7.5'],
};

export const BADGE_SIZE = 40;
export const ARROW_SIZE = 64;

export interface IconAtlas {
  canvas: HTMLCanvasElement;
  mapping: Record<string, { x: number; y: number; width: number; height: number; anchorY: number; mask: boolean }>;
}

/** Badge icons (one per symbol and status) and the heading arrow, in one canvas. */
export function buildIconAtlas(pixelRatio = 2): IconAtlas {
  const symbols = Object.keys(GLYPHS) as MarkerSymbol[];
  const statuses = Object.keys(STATUS_COLORS) as UnitStatus[];
  const cell = BADGE_SIZE * pixelRatio;
  const arrow = ARROW_SIZE * pixelRatio;
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(cell * symbols.length, arrow);
  canvas.height = cell * statuses.length + arrow;
  const ctx = canvas.getContext('2d');
  const mapping: IconAtlas['mapping'] = {};
  if (!ctx) return { canvas, mapping };
  statuses.forEach((status, row) => {
    symbols.forEach((symbol, column) => {
      const x = column * cell;
      const y = row * cell;
      const r = cell / 2;
      ctx.save();
      ctx.translate(x, y);
      ctx.beginPath();
      ctx.arc(r, r, r - 2 * pixelRatio, 0, Math.PI * 2);
      ctx.fillStyle = cssColor(STATUS_COLORS[status]);
      ctx.fill();
      ctx.lineWidth = 2.5 * pixelRatio;
      ctx.strokeStyle = '#ffffff';
      ctx.stroke();
      // The glyph: 24 units scaled into the inner 60 % of the badge.
      const scale = (cell * 0.6) / 24;
      ctx.translate(cell * 0.2, cell * 0.2);
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
  // Heading arrow: a wedge at the top of a square whose centre is the unit, drawn as a mask (coloured per unit).
  const ay = cell * statuses.length;
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
