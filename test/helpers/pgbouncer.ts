/**
 * A private PgBouncer (Debian's package) in transaction mode for one test file, in front of the
 * machine's PostgreSQL:
 *
 *   const bouncer = await startPgbouncer({ serverUrl: db.url, databases: [name], users: ['postgres', 'api_anon'] });
 *   bouncer.url(db.url)     // the same database, user and password, through the pooler
 *   await bouncer.stop();
 *
 * Its ini and userlist live in a temp directory; it listens on 127.0.0.1 only, on a free port.
 * auth_type=trust matches the machine's trust-auth PostgreSQL: PgBouncer checks only that the user
 * is listed, then logs in to the server as that user. PgBouncer refuses to run as root, so a root
 * test run starts it with `-u postgres`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';

/** The pgbouncer binary (Debian installs it in /usr/sbin, often not on a user's PATH), or null. */
export function findPgbouncer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, 'pgbouncer');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export const PGBOUNCER_BINARY = findPgbouncer();

export interface Pgbouncer {
  readonly port: number;
  /** `serverUrl` with its host and port replaced by the pooler's (database, user, password kept). */
  url(serverUrl: string): string;
  /** Everything PgBouncer logged (for a failing test's message). */
  log(): string;
  /** `SHOW <what>` on PgBouncer's console (POOLS, SERVERS, STATS …), as the first listed user. */
  show(what: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

export interface PgbouncerOptions {
  /** A URL of the PostgreSQL server; its host and port are the pooler's backend. */
  serverUrl: string;
  /** The databases to serve (each by the same name on the server). */
  databases: readonly string[];
  /** The users clients may log in as (the server must let each log in without a password). */
  users: readonly string[];
  /** Server connections per (database, user) pair. */
  poolSize?: number;
}

const READY_ATTEMPTS = 100;

export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  if (!PGBOUNCER_BINARY) throw new Error('pgbouncer is not installed (apt-get install pgbouncer)');
  const server = new URL(options.serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'acct-pgbouncer-'));
  // The postgres user reads these after PgBouncer drops root.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  const userlist = join(dir, 'userlist.txt');
  const host = server.hostname || '127.0.0.1';
  const serverPort = server.port || '5432';
  writeFileSync(
    ini,
    [
      '[databases]',
      ...options.databases.map((name) => `${name} = host=${host} port=${serverPort} dbname=${name}`),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 10}`,
      'max_client_conn = 500',
      // pg sends none of these by default; harmless if a client library does.
      'ignore_startup_parameters = extra_float_digits,options',
      // The console (database `pgbouncer`) answers SHOW to this user, so tests can see the pools.
      `stats_users = ${options.users[0]}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  writeFileSync(userlist, `${options.users.map((user) => `"${user}" ""`).join('\n')}\n`, { mode: 0o644 });

  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER_BINARY, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const bouncer: Pgbouncer = {
    port,
    url: (serverUrl) => {
      const url = new URL(serverUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    log: () => output,
    show: async (what) => {
      const admin = new URL(options.serverUrl);
      admin.hostname = '127.0.0.1';
      admin.port = String(port);
      admin.pathname = '/pgbouncer';
      admin.username = options.users[0] ?? '';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      try {
        // The console speaks only the simple protocol: no parameters.
        return (await client.query(`SHOW ${what}`)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGINT: PgBouncer's "safe shutdown", which waits for clients; SIGTERM closes at once.
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitUntilServing(child, bouncer.url(options.serverUrl), () => output);
  } catch (error) {
    await bouncer.stop();
    throw error;
  }
  return bouncer;
}

/** A port nothing listens on right now (the kernel's pick for port 0). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Bounded: a query through the pooler answers, or PgBouncer exited, or the attempts run out. */
async function waitUntilServing(child: ChildProcess, url: string, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < READY_ATTEMPTS; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`pgbouncer did not answer on ${new URL(url).host}:\n${log()}`);
}
