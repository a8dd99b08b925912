import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, TEST_ENCRYPTION_KEY, createPostgresDatabase, type DbTarget } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { runCli, startEntry, type RunningProcess } from '../helpers/process.ts';
import { generatedSie } from '../helpers/sie.ts';
import { createServices } from '../../domain/bootstrap.ts';
import { loadConfig } from '../../domain/kernel/config.ts';
import { main, type MainIo } from '../../cli/client/main.ts';
import { CLI_EXIT } from '../../registry/cli-command.ts';
import { ERROR_CATALOG } from '../../registry/error-catalog.ts';
import { registry } from '../../registry/index.ts';

/**
 * `--wait` against a running server (cli/serve.ts with its operation runner) and a real SIE
 * import: the binary with plain progress lines and exit 0 on success; the client in this process
 * with a terminal's stderr (a bar redrawn in place) on a file whose verification does not balance,
 * so the operation fails and the exit code is SIE_INVALID's class.
 */

const VERIFICATIONS = 25;

class Capture extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe.each(DB_TARGETS)('accounting --wait against a running server (%s)', (target: DbTarget) => {
  let server: RunningProcess;
  let env: Record<string, string>;
  let tenant: Tenant;
  const dir = mkdtempSync(join(tmpdir(), 'acct-cli-wait-'));
  let dropDatabase: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const serverEnv: Record<string, string> = { ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'info', PORT: '0' };
    if (target === 'postgres') {
      const db = await createPostgresDatabase();
      dropDatabase = db.drop;
      Object.assign(serverEnv, { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl });
    } else {
      serverEnv.DATA_DIR = mkdtempSync(join(tmpdir(), 'acct-cli-wait-db-'));
    }
    const services = await createServices(loadConfig({ ...serverEnv, LOG_LEVEL: 'silent' }));
    tenant = await makeTenant(services.database.prisma);
    await services.database.close();
    server = startEntry('cli/serve.ts', serverEnv);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    env = { ACCOUNTING_API_URL: `http://127.0.0.1:${port}`, ACCOUNTING_API_KEY: tenant.key };
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await dropDatabase();
  });

  it('imports an SIE file and exits 0 with the succeeded operation, progress as plain lines', async () => {
    const file = join(dir, 'bokforing.se');
    writeFileSync(file, generatedSie(VERIFICATIONS));
    const run = await runCli(['ledger', 'import-sie', '--company', tenant.companyId, '--file', file, '--wait'], env);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(CLI_EXIT.ok);
    const operation = JSON.parse(run.stdout) as { id: string; status: string; progress: number; result: { verifications: number; transactions: number } };
    expect(operation.status).toBe('succeeded');
    expect(operation.progress).toBe(100);
    expect(operation.result.verifications).toBe(VERIFICATIONS);
    expect(operation.result.transactions).toBe(2 * VERIFICATIONS);
    // Not a terminal: one line per state seen, the 202's queued state first and the final one last, no bar.
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Operation ${operation.id} \\(sie_import\\): queued +0%`));
    expect(lines.at(-1)).toMatch(new RegExp(`^Operation ${operation.id} \\(sie_import\\): succeeded 100%`));
    expect(run.stderr).not.toContain('\r');
    expect(new Set(lines).size).toBe(lines.length);
  }, 120_000);

  it('exits with the failure class of the operation error, a progress bar on a terminal', async () => {
    // One verification whose two rows no longer balance: the job refuses the file (SIE_INVALID).
    const text = generatedSie(3).toString('latin1');
    const unbalanced = text.replace(/(#TRANS 3041 \{\} -)(\d)/, '$19$2');
    expect(unbalanced).not.toBe(text);
    const file = join(dir, 'obalanserad.se');
    writeFileSync(file, Buffer.from(unbalanced, 'latin1'));
    const stdout = new Capture(false);
    const stderr = new Capture(true);
    const io = { stdout, stderr, env, readStdin: async () => '' } as unknown as MainIo;
    const code = await main(['ledger', 'import-sie', '--company', tenant.companyId, '--file', file, '--wait'], io, registry.operations);
    const operation = JSON.parse(stdout.text) as { id: string; status: string; error: { code: string; message: string } };
    expect(operation.status).toBe('failed');
    expect(operation.error.code).toBe('SIE_INVALID');
    expect(ERROR_CATALOG.SIE_INVALID.status).toBe(422);
    expect(code).toBe(CLI_EXIT.validation);
    // The bar: redrawn in place with \r, the line erased after it, ended by one newline; then the error.
    expect(stderr.text).toMatch(/^\r\[-{30}\] queued +0%\x1b\[K/);
    expect(stderr.text).toMatch(/\r\[[#-]{30}\] failed +\d+%[^\n]*\x1b\[K\n/);
    expect(stderr.text).toContain(`Error: operation ${operation.id} failed: SIE_INVALID: ${operation.error.message}\n`);
    expect(stderr.text).toContain(`Hint: ${ERROR_CATALOG.SIE_INVALID.recoveryHint}`);
  }, 120_000);
});
