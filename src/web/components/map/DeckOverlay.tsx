import type { Layer, PickingInfo } from '@deck.gl/core';
import { MapboxOverlay } from '@deck.gl/mapbox';
import type { Device } from '@luma.gl/core';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { type MapScene, useMapScene } from './MapView';

/**
 * A child's part of the deck.gl drawing. The child keeps its layers itself and hands them over in the frame;
 * handing over the same array again tells that nothing changed, so no layer is rebuilt and nothing repaints.
 */
export interface DeckLayerSource {
  /** Stacking: a lower order is drawn beneath. */
  order: number;
  /** Called in each frame the overlay draws (after `redraw`): the child's layers now. */
  layers(): readonly Layer[];
  /** A click on the map (picking tells which layer and object, if any). */
  onClick?(info: PickingInfo): void;
  /** deck.gl has drawn a frame onto the map. */
  onAfterRender?(): void;
  /** deck.gl's WebGL device exists (at once when it did already): textures of the child's own go on it. */
  onDevice?(device: Device): void;
}

/**
 * The deck.gl overlay's children and its one frame loop: a child asks for a frame (`redraw`) when its data
 * changed, and every child hands over its layers in that frame; the overlay gets new layers only when one of
 * them changed. Children are drawn without React: a live message or a camera move asks for a frame, not a render.
 */
export class DeckLayers {
  private readonly sources: DeckLayerSource[] = [];
  private readonly handedOver = new Map<DeckLayerSource, readonly Layer[]>();
  private membershipChanged = true;
  private frame: number | null = null;
  private overlay: MapboxOverlay | null = null;
  private device: Device | null = null;
  private unannounce = () => {};
  private announced = '';

  constructor(private readonly scene: MapScene) {}

  add(source: DeckLayerSource): () => void {
    const at = this.sources.findIndex((other) => other.order > source.order);
    this.sources.splice(at === -1 ? this.sources.length : at, 0, source);
    if (this.device) source.onDevice?.(this.device);
    this.membershipChanged = true;
    this.redraw();
    return () => {
      const index = this.sources.indexOf(source);
      if (index === -1) return;
      this.sources.splice(index, 1);
      this.handedOver.delete(source);
      this.membershipChanged = true;
      this.redraw();
    };
  }

  /** Asks for a frame: at most one a frame, however often it is asked. */
  redraw(): void {
    if (this.frame === null) this.frame = requestAnimationFrame(() => this.draw());
  }

  attach(overlay: MapboxOverlay): void {
    this.overlay = overlay;
    this.redraw();
  }

  detach(): void {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.overlay = null;
    this.unannounce();
  }

  deviceReady(device: Device): void {
    this.device = device;
    for (const source of this.sources) source.onDevice?.(device);
    this.redraw();
  }

  click(info: PickingInfo): void {
    for (const source of [...this.sources]) source.onClick?.(info);
  }

  afterRender(): void {
    for (const source of this.sources) source.onAfterRender?.();
  }

  private draw(): void {
    this.frame = null;
    if (!this.overlay) return;
    let changed = this.membershipChanged;
    const all: Layer[] = [];
    for (const source of this.sources) {
      const layers = source.layers();
      if (this.handedOver.get(source) !== layers) {
        this.handedOver.set(source, layers);
        changed = true;
      }
      for (const layer of layers) all.push(layer);
    }
    if (!changed) return;
    this.membershipChanged = false;
    this.overlay.setProps({ layers: all });
    // Which layers are drawn, on the map's element (tests read it); written only when the set of ids changes.
    const ids = all.map((layer) => layer.id).join(' ');
    if (ids !== this.announced) {
      this.announced = ids;
      this.unannounce();
      this.unannounce = this.scene.announce(this, [], ids === '' ? [] : ids.split(' '));
    }
  }
}

const DeckContext = createContext<DeckLayers | null>(null);

/**
 * deck.gl on the map: interleaved into MapLibre's WebGL context (one context and one canvas, which matters most
 * with software rendering), or in a canvas of its own above the map when `interleaved` is false. Its children
 * draw through `useDeckLayers`; each one's layers come and go with it.
 */
export function DeckOverlay({ interleaved = true, children }: { interleaved?: boolean; children?: ReactNode }) {
  const scene = useMapScene();
  const [layers] = useState(() => new DeckLayers(scene));

  useEffect(() => {
    const { map } = scene;
    // deck.gl's interleaved mode reads `map.transform`, which MapLibre 6 keeps on its camera: expose it.
    if (!('transform' in map)) {
      Object.defineProperty(map, 'transform', { get: () => (map as unknown as { _camera: { transform: unknown } })._camera.transform });
    }
    const overlay = new MapboxOverlay({
      interleaved,
      layers: [],
      getCursor: ({ isHovering, isDragging }) => (isDragging ? 'grabbing' : isHovering ? 'pointer' : 'grab'),
      onClick: (info: PickingInfo) => layers.click(info),
      onDeviceInitialized: (device) => layers.deviceReady(device),
      onAfterRender: () => layers.afterRender(),
    });
    map.addControl(overlay);
    // The children's first layers (with no data yet) compile their WebGL programs, slow with software rendering:
    // done now, while the data downloads; the real layers keep the same ids, so deck.gl reuses those programs.
    layers.attach(overlay);
    // deck.gl draws into the map's canvas through a canvas context of its own, which keeps its own idea of the
    // drawing buffer's size (the overlay drops `useDevicePixels` when interleaved): hand it the map's new size,
    // through the Deck the overlay keeps on the map.
    const stopFollowing = scene.onResolution(() => {
      const canvas = map.getCanvas();
      const deck = (map as unknown as { __deck?: { device?: { getDefaultCanvasContext(): { setDrawingBufferSize(width: number, height: number): void } } } }).__deck;
      deck?.device?.getDefaultCanvasContext().setDrawingBufferSize(canvas.width, canvas.height);
    });
    return () => {
      stopFollowing();
      layers.detach();
      const remove = () => {
        try {
          map.removeControl(overlay);
          overlay.finalize();
        } catch {
          // already finalised
        }
      };
      // With the map: deck.gl's layers and device are finalised in a step of the map's taking-down, after leaving.
      if (scene.removed) scene.retire(remove);
      else remove();
    };
  }, [scene, layers, interleaved]);

  return <DeckContext.Provider value={layers}>{children}</DeckContext.Provider>;
}

/**
 * Draws a child's deck.gl layers while it is mounted. `source` must stay the same object (it reads what it
 * draws from refs); the returned `DeckLayers` takes its `redraw` requests.
 */
export function useDeckLayers(source: DeckLayerSource): DeckLayers {
  const layers = useContext(DeckContext);
  if (!layers) throw new Error('a deck.gl layer must be a child of DeckOverlay');
  useEffect(() => layers.add(source), [layers, source]);
  return layers;
}
