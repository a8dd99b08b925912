import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { startEntry, type RunningProcess } from '../helpers/process.ts';

describe('npm start on a fresh data directory', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
  });

  it('migrates, seeds a demo key once, serves health and lists the demo company', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'acct-e2e-'));
    const server = startEntry('cli/serve.ts', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    running.push(server);
    const [, key] = await server.waitFor(/(sk_test_[0-9A-Za-z]{32})/);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    expect(server.stdout()).toMatch(/curl -s -H "Authorization: Bearer sk_test_/);
    const base = `http://127.0.0.1:${port}/api/v1`;

    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).data.status).toBe('ok');

    const companies = await fetch(`${base}/companies`, { headers: { authorization: `Bearer ${key}` } });
    expect(companies.status).toBe(200);
    const body = await companies.json();
    expect(body.data.companies.map((c: { name: string }) => c.name)).toEqual(['Demo Bokföring AB']);
    await server.stop();

    // A second start on the same data keeps the data and prints no new key.
    const again = startEntry('cli/serve.ts', { DATA_DIR: dataDir, PORT: '0' });
    running.push(again);
    const [, port2] = await again.waitFor(/"port":(\d+)/);
    expect(again.stdout()).not.toMatch(/sk_test_/);
    const stillThere = await fetch(`http://127.0.0.1:${port2}/api/v1/companies`, { headers: { authorization: `Bearer ${key}` } });
    expect(stillThere.status).toBe(200);
  }, 120_000); // two process starts on the embedded database

  it('fails closed with one clear line when PostgreSQL mode lacks DATABASE_ANON_URL', async () => {
    const server = startEntry('cli/serve.ts', {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      ENCRYPTION_KEY: 'a'.repeat(64),
    });
    running.push(server);
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    const lines = server.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Missing required setting DATABASE_ANON_URL/);
  });

  // Issue 28: a missing WEBHOOK_CA_FILE crashed the server after "listening", with a stack trace.
  it.each([
    [
      'WEBHOOK_CA_FILE missing',
      (dir: string) => ({ DATA_DIR: dir, WEBHOOK_CA_FILE: join(dir, 'no-such-ca.pem') }),
      /^Invalid configuration: WEBHOOK_CA_FILE: cannot read .*no-such-ca\.pem \(ENOENT\)\.$/,
    ],
    [
      'WEBHOOK_CA_FILE not a certificate',
      (dir: string) => {
        writeFileSync(join(dir, 'ca.pem'), 'not a certificate');
        return { DATA_DIR: dir, WEBHOOK_CA_FILE: join(dir, 'ca.pem') };
      },
      /^Invalid configuration: WEBHOOK_CA_FILE: .*ca\.pem holds no PEM certificate\.$/,
    ],
    [
      'DATA_DIR a file',
      (dir: string) => {
        writeFileSync(join(dir, 'file'), '');
        return { DATA_DIR: join(dir, 'file') };
      },
      /^Invalid configuration: DATA_DIR: .*file is not a writable directory/,
    ],
  ])('refuses to start, before listening, with one line when %s', async (_name, env, line) => {
    const server = startEntry('cli/serve.ts', { PORT: '0', ...env(mkdtempSync(join(tmpdir(), 'acct-e2e-'))) });
    running.push(server);
    const [code] = (await once(server.child, 'exit')) as [number];
    expect(code).toBe(1);
    const lines = server.stderr().trim().split('\n');
    expect(lines, server.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(server.stdout()).not.toMatch(/listening/);
  });
});
