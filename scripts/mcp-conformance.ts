/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against /mcp:
 * the scenarios that apply to a product server (DESIGN.md §13); the others call fixture tools.
 *
 *   npx tsx scripts/mcp-conformance.ts                         # starts cli/serve.ts on a fresh data dir
 *   npx tsx scripts/mcp-conformance.ts --mode discover         # the same against /mcp?mode=discover
 *   API_KEY=sk_… npx tsx scripts/mcp-conformance.ts --url http://127.0.0.1:3000/mcp
 *
 * The suite connects without credentials, and /mcp requires a key (401, as REST). So the suite
 * talks to a loopback proxy that adds `Authorization: Bearer <key>` and forwards everything else
 * unchanged — Host and Origin included — so the DNS-rebinding scenario tests the server's own check.
 * Exits 1 when any scenario fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFORMANCE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** Starts the real server on a fresh data directory and returns its /mcp URL and the demo key. */
async function startServer(): Promise<{ url: string; key: string; child: ChildProcess }> {
  const child = spawn(TSX, [join(ROOT, 'cli', 'serve.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mcp-conformance-')),
      PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const check = (chunk: Buffer): void => {
      output += chunk.toString();
      const key = /(sk_test_[0-9A-Za-z]{32})/.exec(output)?.[1];
      const port = /"port":(\d+)/.exec(output)?.[1];
      if (key && port) resolve({ url: `http://127.0.0.1:${port}/mcp`, key, child });
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
}

/** Loopback proxy adding the bearer key; every other header, the body and the status pass through. */
async function startAuthProxy(target: URL, key: string): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      res.writeHead(502).end(String(error));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${target.pathname}${target.search}`, close: () => server.close() };
}

function runScenario(url: string, scenario: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-results-'));
    const child = spawn(process.execPath, [CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '-o', outputDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ ok: code === 0, output }));
  });
}

const { values } = parseArgs({ options: { url: { type: 'string' }, mode: { type: 'string' } } });
let server: ChildProcess | undefined;
let target: { url: string; key: string };
if (values.url) {
  const key = process.env.API_KEY ?? '';
  if (!key) throw new Error('With --url, set API_KEY to a key of that server.');
  target = { url: values.url, key };
} else {
  const started = await startServer();
  server = started.child;
  target = started;
}
let failed = 0;
const targetUrl = new URL(target.url);
if (values.mode) targetUrl.searchParams.set('mode', values.mode);
const proxy = await startAuthProxy(targetUrl, target.key);
try {
  log(`MCP conformance against ${targetUrl.href} (through the auth proxy at ${proxy.url})`);
  for (const scenario of SCENARIOS) {
    const result = await runScenario(proxy.url, scenario);
    log(`${result.ok ? 'PASS' : 'FAIL'}  ${scenario}`);
    if (!result.ok) {
      failed += 1;
      log(result.output.trim().replace(/^/gm, '    '));
    }
  }
} finally {
  proxy.close();
  server?.kill('SIGTERM');
}
log(failed === 0 ? `All ${SCENARIOS.length} scenarios passed.` : `${failed} of ${SCENARIOS.length} scenarios failed.`);
process.exit(failed === 0 ? 0 : 1);
