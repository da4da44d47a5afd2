import type { Device, Texture } from '@luma.gl/core';
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
 * by the browser's own 2D renderer into one texture, so that the map draws each as one textured quad, in two
 * layers (the clusters', the units' badges and names). With software WebGL every draw call and every quad's vertices cost: a text layer drew a quad
 * per character and a box per name, a badge took two icon layers, a cluster a circle layer and a text layer.
 * A new picture (a name coming into view, a cluster's new count) is uploaded into its own place of the texture
 * and nothing else: handing deck.gl a new canvas instead made it upload the whole atlas again, tens of
 * milliseconds a time with software WebGL, several times a second while panning a busy fleet. Pictures keep
 * their place until the texture is full; then it starts over with the pictures asked for.
 */
export class PictureAtlas {
  /** The texture the clusters' and the units' layers draw from; null until the map's WebGL device exists (`attach`). */
  texture: Texture | null = null;
  readonly mapping: IconAtlas['mapping'] = {};
  /** Counts the texture's fresh starts: a layer built from an earlier one is built again. */
  generation = 0;
  private device: Device | null = null;
  private x = 0;
  private y = 0;
  private rowHeight = 0;
  private readonly size: number;
  /** Each new picture is drawn here, then copied into its place in the texture. */
  private readonly scratch = document.createElement('canvas');

  constructor(private readonly pixelRatio: number) {
    this.size = ATLAS_SIZE * pixelRatio;
  }

  /**
   * Creates the texture on the map's device; pictures drawn before are drawn again on their next use. Each layer
   * drawing from the atlas attaches it; the same device keeps the texture.
   */
  attach(device: Device): void {
    if (this.device === device) return;
    this.device = device;
    this.texture?.destroy();
    this.texture = device.createTexture({
      width: this.size,
      height: this.size,
      format: 'rgba8unorm',
      sampler: { minFilter: 'linear', magFilter: 'linear', addressModeU: 'clamp-to-edge', addressModeV: 'clamp-to-edge' },
    });
    this.clear();
  }

  destroy(): void {
    this.texture?.destroy();
    this.texture = null;
    this.device = null;
  }

  private clear(): void {
    this.generation += 1;
    for (const key of Object.keys(this.mapping)) delete this.mapping[key];
    this.x = 0;
    this.y = 0;
    this.rowHeight = 0;
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

  /**
   * Draws the pictures not drawn yet into their places of the texture. True when the texture had to start over
   * (the other layers drawing from it are then built again: see `generation`).
   */
  ensure(pictures: Iterable<Picture>): boolean {
    const texture = this.texture;
    if (!texture) return false;
    const missing = new Map<string, Picture>();
    for (const picture of pictures) if (!this.mapping[picture.key]) missing.set(picture.key, picture);
    if (missing.size === 0) return false;
    const generation = this.generation;
    const list = [...missing.values()];
    let places = this.layout(list, { x: this.x, y: this.y, rowHeight: this.rowHeight });
    if (!places) {
      // Full: start over with only what is asked for now.
      this.clear();
      places = this.layout(list, { x: 0, y: 0, rowHeight: 0 }) ?? [];
    }
    const ratio = this.pixelRatio;
    list.forEach((picture, i) => {
      const place = places[i];
      if (!place) return;
      const [width, height] = this.cell(picture);
      // Resizing clears the canvas.
      this.scratch.width = width;
      this.scratch.height = height;
      const ctx = this.scratch.getContext('2d');
      if (!ctx) return;
      ctx.scale(ratio, ratio);
      picture.draw(ctx, picture.width, picture.height);
      texture.copyExternalImage({ image: this.scratch, x: place[0], y: place[1], width, height });
      const anchorY = (picture.anchorY ?? picture.height / 2) * ratio;
      this.mapping[picture.key] = { x: place[0], y: place[1], width, height, anchorY, mask: false };
    });
    return this.generation !== generation;
  }
}
