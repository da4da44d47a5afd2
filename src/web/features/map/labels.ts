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
    // Roughly the drawn text's extent: 0.62 em per character, centred under the marker.
    const halfWidth = (unit.name.length * LABEL_SIZE * 0.62) / 2 + 3;
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
const ATLAS_SIZE = 1024;

/**
 * Unit names drawn once each (text with a white halo, by the browser's own text renderer) into one texture, so
 * that the map draws a label as one textured quad instead of one per character plus a background: with software
 * WebGL every quad's vertices cost, and names were most of a frame. A name keeps its place until the texture is
 * full; then it starts over with the names asked for. Each change hands out a new canvas (deck.gl uploads a
 * texture when its reference changes).
 */
export class LabelAtlas {
  canvas: HTMLCanvasElement;
  readonly mapping: Record<string, { x: number; y: number; width: number; height: number; anchorY: number; mask: boolean }> = {};
  private x = 0;
  private y = 0;
  private readonly size: number;

  constructor(private readonly pixelRatio: number) {
    this.size = ATLAS_SIZE * pixelRatio;
    this.canvas = this.blank();
  }

  private blank(): HTMLCanvasElement {
    const canvas = document.createElement('canvas');
    canvas.width = this.size;
    canvas.height = this.size;
    return canvas;
  }

  /** Whether pictures of these widths fit after the ones placed, row by row. */
  private fits(widths: number[], height: number): boolean {
    let x = this.x;
    let y = this.y;
    for (const width of widths) {
      if (x + width > this.size) {
        x = 0;
        y += height;
      }
      x += width;
    }
    return y + height <= this.size;
  }

  /** Draws the names not drawn yet; true when the texture changed. */
  ensure(names: Iterable<string>): boolean {
    const missing = [...new Set(names)].filter((name) => !this.mapping[name]);
    if (missing.length === 0) return false;
    const next = this.blank();
    const ctx = next.getContext('2d');
    if (!ctx) return false;
    ctx.drawImage(this.canvas, 0, 0);
    const ratio = this.pixelRatio;
    const height = LABEL_HEIGHT * ratio;
    ctx.font = LABEL_FONT;
    const widths = missing.map((name) => Math.ceil((ctx.measureText(name).width + 8) * ratio));
    if (!this.fits(widths, height)) {
      // Full: start over with only what is asked for now.
      for (const name of Object.keys(this.mapping)) delete this.mapping[name];
      this.x = 0;
      this.y = 0;
      ctx.clearRect(0, 0, this.size, this.size);
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.font = LABEL_FONT;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.lineJoin = 'round';
    ctx.lineWidth = 3;
    ctx.strokeStyle = 'rgba(255, 255, 255, 0.92)';
    ctx.fillStyle = '#1b2430';
    missing.forEach((name, i) => {
      const width = Math.min(widths[i]!, this.size);
      if (this.x + width > this.size) {
        this.x = 0;
        this.y += height;
      }
      if (this.y + height > this.size) return;
      const centreX = (this.x + width / 2) / ratio;
      const centreY = (this.y + height / 2) / ratio;
      ctx.strokeText(name, centreX, centreY);
      ctx.fillText(name, centreX, centreY);
      // Anchored above the picture, so that it hangs LABEL_OFFSET below the unit's position.
      this.mapping[name] = { x: this.x, y: this.y, width, height, anchorY: height / 2 - LABEL_OFFSET * ratio, mask: false };
      this.x += width;
    });
    this.canvas = next;
    return true;
  }
}
