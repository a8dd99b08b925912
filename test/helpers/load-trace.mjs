// `node --import` this file: every module file the process loads (ESM and CommonJS) is appended to
// the file LOAD_TRACE_FILE names, one path a line. The start-up test reads what a start loads.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const out = process.env.LOAD_TRACE_FILE;
if (out) {
  register(new URL('./load-trace-hooks.mjs', import.meta.url));
  const loadJs = Module._extensions['.js'];
  Module._extensions['.js'] = function traced(module, filename) {
    appendFileSync(out, `${filename}\n`);
    return loadJs.call(this, module, filename);
  };
}
