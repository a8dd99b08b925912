import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startEntry, type RunningProcess } from '../helpers/process.ts';
import { LOCK_FILE } from '../../domain/db/data-dir-lock.ts';

/**
 * The process (issue 9): one process per embedded data directory, signals that reach node and stop
 * it gracefully within a bound, and start-up failures as one line. Real processes, real sockets.
 */

const freshDataDir = (): string => mkdtempSync(join(tmpdir(), 'acct-proc-'));

/** `npm start` exactly as a user runs it: npm, the script's shell, then node. */
function npmStart(env: Record<string, string>): { child: ChildProcess; output: () => string; port: Promise<number> } {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let found: ((port: number) => void) | undefined;
  const port = new Promise<number>((resolve) => (found = resolve));
  const collect = (chunk: Buffer): void => {
    text += chunk.toString();
    const match = /"port":(\d+)/.exec(text);
    if (match) found?.(Number(match[1]));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return { child, output: () => text, port };
}

/** A PATCH whose body is sent only in part: a request in flight until `finish` is called. */
function partialPatch(
  port: number,
  key: string,
  companyId: string,
): { request: ClientRequest; response: Promise<IncomingMessage & { text: Promise<string> }>; finish(): void } {
  const body = JSON.stringify({ name: 'Finished In Flight AB' });
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'PATCH',
    path: `/api/v1/companies/${companyId}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const response = new Promise<IncomingMessage & { text: Promise<string> }>((resolve, reject) => {
    request.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      resolve(Object.assign(res, { text: new Promise<string>((done) => res.on('end', () => done(text))) }));
    });
    request.on('error', reject);
  });
  request.write(body.slice(0, 5));
  return { request, response, finish: () => request.end(body.slice(5)) };
}

const get = async (port: number, path: string, key?: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: response.status, body: await response.json() };
};

describe('the server process', () => {
  const running: RunningProcess[] = [];
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.stop()));
  });

  it('stops gracefully on SIGTERM to `npm start`: refuses new connections, finishes the request in flight, logs one line', async () => {
    const dataDir = freshDataDir();
    const server = npmStart({ DATA_DIR: dataDir, PORT: '0' });
    children.push(server.child);
    const port = await server.port;
    const key = /(sk_test_[0-9A-Za-z]{32})/.exec(server.output())![1]!;
    const companyId = (await get(port, '/api/v1/companies', key)).body.data.companies[0].id as string;

    const inFlight = partialPatch(port, key, companyId);
    // A full round trip on another connection: by its answer the server has read the first request's headers.
    expect((await get(port, '/api/v1/health')).status).toBe(200);
    server.child.kill('SIGTERM'); // npm's PID, as `kill -TERM` of the started process does
    await expect
      .poll(async () =>
        get(port, '/api/v1/health').then(
          () => 'accepting',
          (error: Error) => (error.cause as NodeJS.ErrnoException)?.code,
        ),
      )
      .toBe('ECONNREFUSED');

    inFlight.finish();
    const answer = await inFlight.response;
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(await answer.text).data.name).toBe('Finished In Flight AB');

    const [code] = (await once(server.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"shutdown"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ signal: 'SIGTERM', in_flight_at_signal: 1, forced: false });
    // The data directory is free again: the lock went with the process.
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  }, 120_000);

  it('holds the embedded data directory alone, reports a taken port as one line, and stops on SIGINT within the bound', async () => {
    const dataDir = freshDataDir();
    const server = npmStart({ DATA_DIR: dataDir, PORT: '0', SHUTDOWN_GRACE_MS: '200' });
    children.push(server.child);
    const port = await server.port;
    const holderPid = /"pid":(\d+)/.exec(server.output())![1];

    // Two more starts at once: one on the held data directory, one on the taken port.
    const second = startEntry('cli/serve.ts', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    const portTaken = startEntry('cli/serve.ts', { DATA_DIR: freshDataDir(), PORT: String(port), LOG_LEVEL: 'silent' });
    running.push(second, portTaken);
    const [[secondCode], [portCode]] = (await Promise.all([once(second.child, 'exit'), once(portTaken.child, 'exit')])) as [[number], [number]];
    expect([secondCode, portCode]).toEqual([1, 1]);
    const lockLines = second.stderr().trim().split('\n');
    expect(lockLines).toHaveLength(1);
    expect(lockLines[0]).toContain(`in use by process ${holderPid} (npm start)`);
    expect(lockLines[0]).toContain(`point your MCP client at http://127.0.0.1:${port}/mcp`);
    expect(portTaken.stderr().trim().split('\n')).toEqual([`Port 127.0.0.1:${port} is already in use (another server?): stop it, or set PORT to a free port.`]);

    // The holder is untouched and still serves; a request that never finishes cannot hold it past the bound.
    const key = /(sk_test_[0-9A-Za-z]{32})/.exec(server.output())![1]!;
    const companyId = (await get(port, '/api/v1/companies', key)).body.data.companies[0].id as string;
    const stalled = partialPatch(port, key, companyId);
    stalled.response.catch(() => undefined); // its connection is closed by the bound
    expect((await get(port, '/api/v1/health')).status).toBe(200);
    server.child.kill('SIGINT');
    const [code] = (await once(server.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('"event":"shutdown"'));
    expect(JSON.parse(line!)).toMatchObject({ signal: 'SIGINT', in_flight_at_signal: 1, forced: true });
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  }, 180_000);
});
