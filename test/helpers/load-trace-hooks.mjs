// The loader hook of load-trace.mjs: each ESM file's path, as it loads.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function load(url, context, next) {
  const result = await next(url, context);
  if (url.startsWith('file:') && process.env.LOAD_TRACE_FILE) appendFileSync(process.env.LOAD_TRACE_FILE, `${fileURLToPath(url)}\n`);
  return result;
}
