import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/process.ts';

const run = promisify(execFile);

describe('official MCP conformance suite (server-initialize, ping, tools-list, dns-rebinding-protection)', () => {
  it.each([[[] as string[]], [['--mode', 'discover']]])(
    'passes against a freshly started server (%j)',
    async (flags) => {
      // The script starts cli/serve.ts itself and exits 1 (rejecting here) when any scenario fails.
      const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'mcp-conformance.ts'), ...flags], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
        timeout: 110_000,
      }).catch((error: { stdout?: string }) => {
        throw new Error(`conformance failed:\n${error.stdout ?? String(error)}`);
      });
      for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
        expect(stdout).toContain(`PASS  ${scenario}`);
      }
      expect(stdout).toContain('All 4 scenarios passed.');
    },
    120_000,
  ); // a server start and four suite processes; slow on a loaded two-core machine
});
