/**
 * A private PostgreSQL cluster for one test file, so a test may stop, crash and restart it without
 * disturbing the machine's shared server that other test files use at the same time.
 *
 *   const cluster = await startPgCluster();           // initdb + start on 127.0.0.1:<free port>
 *   const db = await cluster.createDatabase('acct');  // { url, anonUrl } (api_anon comes with the migrations)
 *   await cluster.restart('fast');                    // or stop('immediate') … start()
 *   await cluster.destroy();                          // stop and delete its files
 *
 * initdb refuses to run as root, so as root the binaries run as the `postgres` user (runuser).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 puts its binaries; PG_BIN overrides it. */
export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** Whether a private cluster can be made here (the binaries exist). */
export const PG_CLUSTER_AVAILABLE = ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(PG_BIN, name)));

/** `fast` ends sessions cleanly (SIGINT); `immediate` kills the server without a checkpoint, as a crash does. */
export type ShutdownMode = 'fast' | 'immediate';

export interface PgCluster {
  readonly port: number;
  /** Superuser connection to the `postgres` database. */
  readonly adminUrl: string;
  /** Creates a database; its URLs as the privileged user and as api_anon (trust authentication). */
  createDatabase(name: string): Promise<{ url: string; anonUrl: string }>;
  stop(mode: ShutdownMode): Promise<void>;
  start(): Promise<void>;
  /** pg_ctl restart: stop with the mode, start again with the same options; resolves once it accepts connections. */
  restart(mode: ShutdownMode): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every backend: the server keeps its sockets open and the kernel
   * keeps acknowledging, but nothing answers (a frozen host, a partition without a reset).
   */
  freeze(): Promise<void>;
  /** SIGCONT to the same processes. */
  thaw(): Promise<void>;
  /** Stops the server (if running) and deletes its directory. */
  destroy(): Promise<void>;
}

/** The postmaster (first line of postmaster.pid) and its children, read from /proc. */
function clusterProcesses(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

const asRoot = userInfo().uid === 0;

/** Runs a PostgreSQL binary, as the postgres user when we are root. */
async function pgBinary(name: string, args: string[]): Promise<string> {
  const binary = join(PG_BIN, name);
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  try {
    const { stdout } = await run(command, argv, { timeout: 120_000 });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${name} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** A port free on loopback right now (the server binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export async function startPgCluster(): Promise<PgCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'acct-pgcluster-'));
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  await pgBinary('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // Loopback TCP only, its socket in its own directory; durability is not what these tests are about.
  const options = [`-c listen_addresses=127.0.0.1`, `-p ${port}`, `-c unix_socket_directories=${dir}`, '-c fsync=off', '-c full_page_writes=off'].join(' ');
  let running = false;
  const start = async () => {
    await pgBinary('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', options]);
    running = true;
  };
  const stop = async (mode: ShutdownMode) => {
    await pgBinary('pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '60']);
    running = false;
  };
  // The postmaster first, so it forks no new backend while its children are being stopped.
  const freeze = async () => {
    for (const pid of clusterProcesses(data)) process.kill(pid, 'SIGSTOP');
  };
  const thaw = async () => {
    for (const pid of clusterProcesses(data)) process.kill(pid, 'SIGCONT');
  };
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    adminUrl,
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return { url: `postgres://postgres@127.0.0.1:${port}/${name}`, anonUrl: `postgres://api_anon@127.0.0.1:${port}/${name}` };
    },
    stop,
    start,
    async restart(mode) {
      await pgBinary('pg_ctl', ['restart', '-D', data, '-m', mode, '-w', '-t', '60', '-l', log, '-o', options]);
      running = true;
    },
    freeze,
    thaw,
    async destroy() {
      if (running) {
        await thaw().catch(() => undefined);
        await stop('immediate').catch(() => undefined);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
