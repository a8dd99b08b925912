import { X509Certificate } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { ConfigError, type Config } from '../kernel/config.ts';

const reason = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/**
 * Every file a setting names, checked before anything opens or listens, so a mistake is one line
 * at start-up (issue 28: a missing WEBHOOK_CA_FILE crashed the server after it said "listening",
 * at the first delivery). Throws ConfigError; the entry points print its message and exit 1.
 */
export function checkConfiguredFiles(config: Config, options: { dataDirUsed: boolean }): void {
  const caFile = config.WEBHOOK_CA_FILE;
  if (caFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new ConfigError(`Invalid configuration: WEBHOOK_CA_FILE: cannot read ${caFile} (${reason(error)}).`);
    }
    try {
      new X509Certificate(pem);
    } catch {
      throw new ConfigError(`Invalid configuration: WEBHOOK_CA_FILE: ${caFile} holds no PEM certificate.`);
    }
  }
  // The embedded database and the generated encryption key live in DATA_DIR.
  if (options.dataDirUsed) {
    const dir = config.DATA_DIR;
    try {
      mkdirSync(dir, { recursive: true });
      if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
      accessSync(dir, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw new ConfigError(`Invalid configuration: DATA_DIR: ${dir} is not a writable directory (${reason(error)}).`);
    }
  }
}
