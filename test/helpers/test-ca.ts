/**
 * A throwaway PKI for TLS tests: one CA and server certificates it signs, made with the
 * `openssl` CLI the first time they are asked for (once per test process) and kept only in
 * memory; the temp dir holding keys is removed straight away.
 *
 *   const pki = getTestPki();
 *   https.createServer({ key: pki.localhost.key, cert: pki.localhost.cert });
 *   createSender({ ..., extraCaCerts: [pki.caCert] });
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyAndCert {
  /** PEM private key. */
  key: string;
  /** PEM certificate. */
  cert: string;
}

export interface TestPki {
  /** PEM certificate of the test CA: trust it (e.g. `extraCaCerts`) to accept the certs below. */
  caCert: string;
  /** Valid for DNS:localhost, IP:127.0.0.1 and IP:::1, signed by the CA. */
  localhost: KeyAndCert;
  /** Signed by the CA but only for DNS:wrong.example: hostname verification must fail. */
  wrongName: KeyAndCert;
  /** Signed by the CA for localhost, but valid only during 1-2 Jan 2020. */
  expired: KeyAndCert;
  /** Self-signed for localhost, not issued by the CA (DEPTH_ZERO_SELF_SIGNED_CERT). */
  selfSigned: KeyAndCert;
}

const OPENSSL = '/usr/bin/openssl';
const LOCALHOST_SAN = 'DNS:localhost,IP:127.0.0.1,IP:::1';
/** Long enough for any test run, short enough that a leaked key is worthless. */
const VALID_DAYS = '2';
const EXPIRED_START = '20200101000000Z';
const EXPIRED_END = '20200102000000Z';

/**
 * Our own config so nothing depends on the system openssl.cnf. `openssl ca` (rather than
 * `x509 -req`) is used to sign because OpenSSL 3.0's x509 cannot set explicit past dates.
 */
const OPENSSL_CONFIG = `
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ca]
default_ca = test_ca
[test_ca]
database = ./index.txt
serial = ./serial
new_certs_dir = .
default_md = sha256
policy = any_name
unique_subject = no
[any_name]
commonName = supplied
`;

function serverExtension(san: string): string {
  return `
[server_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = ${san}
`;
}

let cached: TestPki | undefined;

/** The process-wide test PKI, generated on first use (a few tens of ms: EC P-256 keys). */
export function getTestPki(): TestPki {
  cached ??= generate();
  return cached;
}

function generate(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'test-ca-'));
  try {
    const run = (args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '1000\n');

    const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    let configs = 0;
    const conf = (extra = '') => {
      const file = `openssl-${configs++}.cnf`;
      writeFileSync(join(dir, file), OPENSSL_CONFIG + extra);
      return file;
    };

    const baseConf = conf();
    run([
      'req',
      '-config',
      baseConf,
      '-x509',
      ...newKey,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      VALID_DAYS,
      '-subj',
      '/CN=Accounting Test CA',
      '-extensions',
      'ca_ext',
    ]);

    const issue = (name: string, cn: string, san: string, validity: string[]): KeyAndCert => {
      const file = conf(serverExtension(san));
      run(['req', '-config', file, '-new', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
      run([
        'ca',
        '-batch',
        '-config',
        file,
        '-cert',
        'ca.crt',
        '-keyfile',
        'ca.key',
        '-in',
        `${name}.csr`,
        '-out',
        `${name}.crt`,
        '-extensions',
        'server_ext',
        '-notext',
        ...validity,
      ]);
      return { key: read(`${name}.key`), cert: read(`${name}.crt`) };
    };

    const localhost = issue('localhost', 'localhost', LOCALHOST_SAN, ['-days', VALID_DAYS]);
    const wrongName = issue('wrong', 'wrong.example', 'DNS:wrong.example', ['-days', VALID_DAYS]);
    const expired = issue('expired', 'localhost', LOCALHOST_SAN, ['-startdate', EXPIRED_START, '-enddate', EXPIRED_END]);

    const selfConf = conf(serverExtension(LOCALHOST_SAN));
    run([
      'req',
      '-config',
      selfConf,
      '-x509',
      ...newKey,
      '-keyout',
      'self.key',
      '-out',
      'self.crt',
      '-days',
      VALID_DAYS,
      '-subj',
      '/CN=localhost',
      '-extensions',
      'server_ext',
    ]);
    const selfSigned = { key: read('self.key'), cert: read('self.crt') };

    return { caCert: read('ca.crt'), localhost, wrongName, expired, selfSigned };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let caFilePath: string | undefined;

/** The test CA's certificate in a PEM file (WEBHOOK_CA_FILE for processes that send webhooks); written once per process. */
export function testCaFile(): string {
  if (caFilePath === undefined) {
    caFilePath = join(mkdtempSync(join(tmpdir(), 'acct-ca-')), 'ca.pem');
    writeFileSync(caFilePath, getTestPki().caCert);
  }
  return caFilePath;
}
