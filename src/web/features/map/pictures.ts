import type { IconAtlas } from './symbols';

/** A picture the atlas draws on first use: its size and anchor in CSS pixels, and how to draw it there. */
export interface Picture {
  key: string;
  width: number;
  height: number;
  /** The point placed on the map's position, from the picture's top (default: its middle). */
  anchorY?: number;
  draw(ctx: CanvasRenderingContext2D, width: number, height: number): void;
}

const ATLAS_SIZE = 1024;

/**
 * Everything the map draws as a picture of its own (cluster badges, unit badges, unit names), each drawn once
 * by the browser's own 2D renderer into one texture, so that the map draws them all as one textured quad each
 * in one layer. With software WebGL every draw call and every quad's vertices cost: a text layer drew a quad
 * per character and a box per name, a badge took two icon layers, a cluster a circle layer and a text layer.
 * Pictures keep their place until the texture is full; then it starts over with the pictures asked for. Each
 * change hands out a new canvas (deck.gl uploads a texture when its reference changes).
 */
export class PictureAtlas {
  canvas: HTMLCanvasElement;
  readonly mapping: IconAtlas['mapping'] = {};
  private x = 0;
  private y = 0;
  private rowHeight = 0;
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

  private cell(picture: Picture): [number, number] {
    return [Math.min(this.size, Math.ceil(picture.width * this.pixelRatio)), Math.min(this.size, Math.ceil(picture.height * this.pixelRatio))];
  }

  /** Where the pictures would go, row by row after the ones placed; null when they do not all fit. */
  private layout(pictures: Picture[], from: { x: number; y: number; rowHeight: number }): Array<[number, number]> | null {
    let { x, y, rowHeight } = from;
    const places: Array<[number, number]> = [];
    for (const picture of pictures) {
      const [width, height] = this.cell(picture);
      if (x + width > this.size) {
        x = 0;
        y += rowHeight;
        rowHeight = 0;
      }
      if (y + height > this.size) return null;
      places.push([x, y]);
      x += width;
      rowHeight = Math.max(rowHeight, height);
    }
    this.x = x;
    this.y = y;
    this.rowHeight = rowHeight;
    return places;
  }

  /** Draws the pictures not drawn yet (a new canvas when any were missing). */
  ensure(pictures: Iterable<Picture>): void {
    const missing = new Map<string, Picture>();
    for (const picture of pictures) if (!this.mapping[picture.key]) missing.set(picture.key, picture);
    if (missing.size === 0) return;
    const next = this.blank();
    const ctx = next.getContext('2d');
    if (!ctx) return;
    const list = [...missing.values()];
    let places = this.layout(list, { x: this.x, y: this.y, rowHeight: this.rowHeight });
    if (places) {
      ctx.drawImage(this.canvas, 0, 0);
    } else {
      // Full: start over with only what is asked for now.
      for (const key of Object.keys(this.mapping)) delete this.mapping[key];
      places = this.layout(list, { x: 0, y: 0, rowHeight: 0 }) ?? [];
    }
    const ratio = this.pixelRatio;
    list.forEach((picture, i) => {
      const place = places[i];
      if (!place) return;
      const [width, height] = this.cell(picture);
      ctx.save();
      ctx.translate(place[0], place[1]);
      ctx.beginPath();
      ctx.rect(0, 0, width, height);
      ctx.clip();
      ctx.scale(ratio, ratio);
      picture.draw(ctx, picture.width, picture.height);
      ctx.restore();
      const anchorY = (picture.anchorY ?? picture.height / 2) * ratio;
      this.mapping[picture.key] = { x: place[0], y: place[1], width, height, anchorY, mask: false };
    });
    this.canvas = next;
  }
}
