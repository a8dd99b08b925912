#!/usr/bin/env node
// The `accounting` executable (package.json "bin"). The client is TypeScript run through tsx, a
// runtime dependency, registered here in-process: no devDependency and nothing on PATH needed,
// so it works from a clone (`npx accounting`) and after `npm install -g .`.
import { register } from 'tsx/esm/api';

register();
await import('../cli/accounting.ts');
