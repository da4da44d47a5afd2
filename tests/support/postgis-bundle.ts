import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Extension } from '@electric-sql/pglite';
import { postgis } from '@electric-sql/pglite-postgis';

/**
 * PostGIS for the tests' database copies, without what a copy never uses: the raster and topology libraries (no
 * migration creates those extensions) and the install and upgrade scripts (the template's migrations already ran
 * them). PGlite unpacks an extension's whole bundle and compiles each of its libraries every time a database opens;
 * those parts are most of the bundle, and the tests open a database per file (and more), so leaving them out takes
 * about a third off each database's start-up. The PostGIS library the queries run on is the same, byte for byte.
 */
function usedByCopies(name: string): boolean {
  if (name === 'lib/postgresql/postgis_raster-3.so' || name === 'lib/postgresql/postgis_topology-3.so') return false;
  return !name.startsWith('share/postgresql/') || name.endsWith('.control');
}

const BLOCK = 512;

/** The package's ustar archive with only what copies use: each entry is a header block plus its data blocks. */
function slimArchive(archive: Uint8Array): Uint8Array<ArrayBuffer> {
  const kept: Uint8Array[] = [];
  const text = (from: number, length: number) => new TextDecoder().decode(archive.subarray(from, from + length)).replace(/\0.*$/s, '');
  let at = 0;
  while (at + BLOCK <= archive.length && archive[at] !== 0) {
    const name = text(at, 100).replace(/^\.\//, '');
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8);
    const end = at + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (usedByCopies(name)) kept.push(archive.subarray(at, end));
    at = end;
  }
  kept.push(new Uint8Array(2 * BLOCK)); // the archive's end marker
  return new Uint8Array(Buffer.concat(kept));
}

let bundle: URL | undefined;

/** The slim bundle's file, built once per machine and package version (beside the test database templates). */
function slimBundle(): URL {
  if (bundle) return bundle;
  const source = new URL('./postgis.tar.gz', import.meta.resolve('@electric-sql/pglite-postgis'));
  const original = readFileSync(source);
  const path = join(tmpdir(), `fleet-test-postgis-${createHash('sha256').update(original).digest('hex').slice(0, 12)}.tar.gz`);
  if (!existsSync(path)) {
    const building = `${path}.${randomBytes(4).toString('hex')}`;
    writeFileSync(building, Bun.gzipSync(slimArchive(Bun.gunzipSync(new Uint8Array(original))), { level: 1 }));
    renameSync(building, path); // atomic: a parallel runner sees the whole file or none
  }
  bundle = new URL(`file://${path}`);
  return bundle;
}

export const slimPostgis: Extension = {
  name: 'postgis',
  setup: async (pg, options) => ({ ...(await postgis.setup(pg, options)), bundlePath: slimBundle() }),
};
