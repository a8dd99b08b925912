// `npm start`. The configuration first; with the embedded database, PGlite's WebAssembly then
// starts compiling off the main thread while the server's other modules load (issue 30), which
// is why they are imported only now.
import { preloadPgliteAssets } from '../domain/db/pglite-assets.ts';
import { configFromEnvironment } from './load-config.ts';

const config = configFromEnvironment();
const pgliteAssets = config.embedded ? preloadPgliteAssets() : undefined;
const { serve } = await import('./serve-server.ts');
await serve(config, pgliteAssets);
