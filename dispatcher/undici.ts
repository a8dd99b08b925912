import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;

/**
 * undici on first use (the first delivery), not at start-up: it is about a megabyte of JavaScript
 * in 110 files, as much as the server's own bundle, and a start needs none of it (issue 30).
 * CommonJS, so it loads synchronously where the first Agent or request needs it.
 */
export const undici = (): typeof Undici => {
  loaded ??= require('undici') as typeof Undici;
  return loaded;
};
