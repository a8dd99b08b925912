import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startEntry, type RunningProcess } from '../helpers/process.ts';

/**
 * The first hour with the real processes (issue 11, "Running it"): `npm start` on a fresh data
 * directory prints the URL to open (PUBLIC_BASE_URL by default follows HOST and PORT) and the
 * demo user's id, logs JSON lines when its output is piped and readable lines on a terminal,
 * one access line per request and one line at shutdown; health says a delivery loop runs; the
 * admin CLI lists what the first start created — never a key — and names missing flags.
 */

/** A port free right now (the OS picks it), so the test can also predict the default base URL. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('npm start and the admin CLI, first hour', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => Promise.all(running.map((p) => p.stop())));
  const dataDir = mkdtempSync(join(tmpdir(), 'acct-first-hour-'));

  async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const proc = startEntry('cli/admin.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, args);
    const [code] = (await once(proc.child, 'exit')) as [number];
    return { code, out: proc.stdout(), err: proc.stderr() };
  }

  it('prints the URL and the demo user, logs JSON lines when piped, one per request and one at shutdown; the admin CLI lists it all', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = startEntry('cli/serve.ts', { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
    running.push(server);
    await server.waitFor(/listening on/);
    const key = server.stdout().match(/(sk_test_[0-9A-Za-z]{32})/)?.[1] ?? '';
    const demoUserId = server.stdout().match(/demo user ([0-9a-f-]{36})/)?.[1] ?? '';
    expect(key).not.toBe('');
    expect(demoUserId).not.toBe('');
    expect(server.stdout()).toContain(`curl -s -H "Authorization: Bearer ${key}" ${base}/api/v1/companies`);
    const listening = jsonLines(server.stderr()).find((line) => String(line.msg).startsWith('listening on'));
    expect(listening).toMatchObject({ url: base, msg: `listening on ${base} (API reference: ${base}/docs)` });

    // The canonical URL everywhere is the one printed.
    const openapi = await (await fetch(`${base}/api/v1/openapi.json`)).json();
    expect(openapi.servers[0].url).toBe(`${base}/api/v1`);
    const refused = await (await fetch(`${base}/api/v1/companies`)).json();
    expect(refused.error.docs_url).toBe(`${base}/docs/errors#UNAUTHENTICATED`);
    expect((await fetch(refused.error.docs_url)).status).toBe(200);

    const health = await fetch(`${base}/api/v1/health`);
    const requestId = health.headers.get('x-request-id');
    expect((await health.json()).data.deliveries).toMatchObject({ due: 0, loop_in_process: true });
    expect((await fetch(`${base}/api/v1/companies`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    await server.stop();
    const lines = jsonLines(server.stderr());
    expect(lines.filter((line) => line.event === 'request' && line.request_id === requestId)).toEqual([
      expect.objectContaining({ method: 'GET', route: '/api/v1/health', status: 200 }),
    ]);
    expect(lines.at(-1)).toMatchObject({ event: 'shutdown', signal: 'SIGTERM' });
    expect(server.stderr()).not.toContain(key);

    // The admin CLI lists what the first start created (its data, not the server's memory).
    const users = JSON.parse((await admin('user', 'list')).out);
    expect(users).toEqual([expect.objectContaining({ id: demoUserId, email: 'demo@example.test' })]);
    const companies = JSON.parse((await admin('company', 'list')).out);
    expect(companies).toEqual([expect.objectContaining({ name: 'Demo Bokföring AB', livemode: false })]);
    const memberships = JSON.parse((await admin('membership', 'list', '--user', demoUserId)).out);
    expect(memberships).toEqual([expect.objectContaining({ user_id: demoUserId, company_id: companies[0].id, role: 'owner' })]);
    const keys = await admin('key', 'list');
    expect(keys.code).toBe(0);
    expect(JSON.parse(keys.out)).toEqual([
      expect.objectContaining({
        prefix: key.slice(0, 12),
        mode: 'test',
        scopes: expect.arrayContaining(['companies:read', 'webhooks:manage', 'payroll:read']),
        user_id: demoUserId,
        last_used_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        revoked_at: null,
      }),
    ]);
    expect(keys.out).not.toContain(key);
    expect(keys.out).not.toMatch(/hash/i);
  }, 180_000); // one server start and five CLI processes on the embedded database

  it('seeds nothing when the port is taken at first start: the next start prints the key, and its curl line names its own port', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'acct-port-taken-'));
    const squatter = createServer();
    squatter.listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const taken = (squatter.address() as { port: number }).port;
    try {
      const first = startEntry('cli/serve.ts', { DATA_DIR: fresh, PORT: String(taken), LOG_LEVEL: 'silent' });
      running.push(first);
      const [code] = (await once(first.child, 'exit')) as [number];
      expect(code).toBe(1);
      expect(first.stderr().trim().split('\n')).toEqual([`Port 127.0.0.1:${taken} is already in use (another server?): stop it, or set PORT to a free port.`]);
      expect(first.stdout()).not.toMatch(/sk_test_|curl/);
    } finally {
      squatter.close();
    }

    // PORT=0: whatever port it gets, the printed line must name it (not PUBLIC_BASE_URL's :0).
    const second = startEntry('cli/serve.ts', { DATA_DIR: fresh, PORT: '0', LOG_LEVEL: 'info' });
    running.push(second);
    const [, port] = await second.waitFor(/"port":(\d+)/);
    const [, key] = second.stdout().match(/(sk_test_[0-9A-Za-z]{32})/) ?? [];
    expect(key).toBeDefined();
    const curl = second.stdout().match(/curl -s -H "Authorization: Bearer \S+" (\S+)/)?.[1];
    expect(curl).toBe(`http://127.0.0.1:${port}/api/v1/companies`);
    const companies = await (await fetch(curl!, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(companies.data.companies).toEqual([expect.objectContaining({ name: 'Demo Bokföring AB' })]);
    await second.stop();
  }, 360_000); // two first starts (migrations of a fresh embedded database each) on a shared machine

  it('names the missing required flags before touching the database', async () => {
    const noName = await admin('key', 'create', '--user', '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10');
    expect(noName.code).toBe(2);
    expect(noName.err).toMatch(/^Missing required flag for "key create": --name\n/);
    expect(noName.err).toContain('Usage: npm run admin -- key create --user <userId> --name <name>');
    const nothing = await admin('user', 'create');
    expect(nothing.code).toBe(2);
    expect(nothing.err).toMatch(/^Missing required flags for "user create": --email, --name\n/);
    expect(nothing.out).toBe('');
  }, 60_000);
});

const SCRIPT = '/usr/bin/script';
const HAS_SCRIPT = existsSync(SCRIPT);
if (!HAS_SCRIPT) console.warn(`${SCRIPT} is absent (util-linux): the terminal log-format test is skipped`);

describe.skipIf(!HAS_SCRIPT)('npm start on a terminal', () => {
  it('writes readable log lines, not JSON, when standard output is a terminal', async () => {
    const port = await freePort();
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    // script(1) gives the server a pseudo-terminal; its own output is the terminal's transcript.
    const child = spawn(SCRIPT, ['-qfec', `${tsx} ${join(ROOT, 'cli', 'serve.ts')}`, '/dev/null'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-tty-')),
        PORT: String(port),
        LOG_LEVEL: 'info',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let transcript = '';
    child.stdout.on('data', (chunk: Buffer) => (transcript += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => transcript.includes('listening on') && resolve());
        child.once('exit', (code) => reject(new Error(`exited (${code}) before listening:\n${transcript}`)));
      });
      const plain = transcript.replace(/\x1b\[[0-9;]*m/g, ''); // colours off for matching
      expect(plain).toMatch(/INFO.*listening on http:\/\/127\.0\.0\.1:\d+ \(API reference/);
      expect(plain).not.toContain('{"level"');
    } finally {
      // The whole group: script, tsx and the server it started.
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await once(child, 'exit').catch(() => {});
    }
  }, 120_000);
});
