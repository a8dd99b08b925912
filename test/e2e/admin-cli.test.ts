import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { startEntry, type RunningProcess } from '../helpers/process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'acct-cli-'));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = startEntry('cli/admin.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, args);
  const [code] = (await once(proc.child, 'exit')) as [number];
  return { code, out: proc.stdout(), err: proc.stderr() };
}

describe('admin CLI', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => Promise.all(running.map((p) => p.stop())));

  it('creates a user, a company, a membership and a key that works against the server', async () => {
    const user = JSON.parse((await cli('user', 'create', '--email', 'ada@example.test', '--name', 'Ada')).out);
    const company = JSON.parse((await cli('company', 'create', '--name', 'Ada AB', '--org-number', '556123-4567')).out);
    expect((await cli('membership', 'create', '--user', user.id, '--company', company.id)).code).toBe(0);
    const created = await cli('key', 'create', '--user', user.id, '--name', 'ci', '--scopes', 'companies:read');
    const key = JSON.parse(created.out);
    expect(key.key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(key.prefix).toBe(key.key.slice(0, 12));

    const bad = await cli('key', 'create', '--user', user.id, '--name', 'bad', '--scopes', 'companies:delete');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Error: scopes\.0/);

    const server = startEntry('cli/serve.ts', { DATA_DIR: dataDir, PORT: '0' });
    running.push(server);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/companies`, { headers: { authorization: `Bearer ${key.key}` } });
    const body = await response.json();
    expect(body.data.companies.map((c: { id: string }) => c.id)).toEqual([company.id]);
    // The store holds the hash, so the plaintext key appears nowhere but the one CLI answer.
    expect(server.stdout() + server.stderr()).not.toContain(key.key);
  }, 180_000); // six process starts; slow while other suites load the two cores
});
