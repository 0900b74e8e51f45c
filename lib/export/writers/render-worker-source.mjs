// Starts the render worker from its TypeScript source (development and tests): tsx's loader is
// registered in this thread first. Bundles ship render-worker.mjs instead.
import { register } from 'tsx/esm/api';

register();
await import('./render-worker.ts');
