/**
 * The portal's two static files, `static/portal.js` (the one script) and `static/portal.css`,
 * read from beside this module: in the repository `lib/portal/static/`, in the Lambda bundle
 * `static/` beside the bundle (the stack copies them there, `infra/pbs-function.ts` `assets`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** The static files, by name, with their content types. */
export const ASSETS = {
  'portal.js': 'text/javascript; charset=utf-8',
  'portal.css': 'text/css; charset=utf-8',
} as const;

/** One static file's name. */
export type AssetName = keyof typeof ASSETS;

/** Where the static files are, relative to this module (and to the bundle). */
export const ASSET_DIR = 'static';

/** A static file: bytes, type and a strong ETag. */
export interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
}

const cache = new Map<AssetName, Promise<Asset>>();

/** Reads a static file once per process. */
export function readAsset(name: AssetName): Promise<Asset> {
  let asset = cache.get(name);
  if (asset === undefined) {
    asset = readFile(new URL(`./${ASSET_DIR}/${name}`, import.meta.url)).then((bytes) => ({
      body: new Uint8Array(bytes),
      type: ASSETS[name],
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
    }));
    // A failed read is not kept: the next request tries again.
    asset.catch(() => cache.delete(name));
    cache.set(name, asset);
  }
  return asset;
}

/** Whether `name` is one of the static files. */
export function isAssetName(name: string): name is AssetName {
  return Object.hasOwn(ASSETS, name);
}
