import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import { ROOT } from './process.ts';

/** Debian's libxml2-utils (installed by .ci/run): a real XML Schema validator. */
export const HAS_XMLLINT = existsSync('/usr/bin/xmllint');
if (!HAS_XMLLINT) console.warn('xmllint is absent (apt-get install libxml2-utils): the tax file validation tests are skipped');

/** The schemas we derived from Skatteverket's published structures (docs/tax.md). */
export const ESKD_XSD = join(ROOT, 'docs/tax/eskd-upload-6.0.xsd');
export const AGI_XSD = join(ROOT, 'docs/tax/arbetsgivardeklaration-1.1.xsd');

/** Validates a file's bytes against an XSD with xmllint (no network); its verdict and messages. */
export function validateXml(xsd: string, bytes: Uint8Array): { valid: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xml-'));
  try {
    const file = join(dir, 'file.xml');
    writeFileSync(file, bytes);
    const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, file], { encoding: 'utf8' });
    return { valid: result.status === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A GET through the real app that keeps the body's bytes (call() decodes text as UTF-8). */
export async function download(app: Hono<AppEnv>, path: string, key: string, accept: string) {
  const response = await app.request(path, { headers: { authorization: `Bearer ${key}`, accept } }, {
    incoming: { socket: { remoteAddress: '203.0.113.77' } },
  } as never);
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}
