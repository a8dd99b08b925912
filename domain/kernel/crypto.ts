import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_BYTES = 32; // AES-256
const IV_BYTES = 12; // the GCM standard nonce size
const VERSION_PREFIX = 'v1:'; // lets us rotate the format later without guessing

export const sha256Hex = (input: string | Buffer): string => createHash('sha256').update(input).digest('hex');

/** Encrypts secrets at rest (webhook secrets, stored idempotent responses) with AES-256-GCM. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`encryption key must be ${KEY_BYTES} bytes`);
    this.#key = key;
  }

  /** Accepts 64 hex characters or base64 of 32 bytes. */
  static fromSetting(value: string): SecretBox {
    const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new Error('ENCRYPTION_KEY must be 64 hex characters or base64 of 32 bytes');
    }
    return new SecretBox(key);
  }

  /** The embedded default: a key file created once in the data directory, readable only by us. */
  static fromDataDir(dataDir: string): SecretBox {
    const file = join(dataDir, 'encryption.key');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, randomBytes(KEY_BYTES).toString('hex'), { mode: 0o600, flag: 'wx' });
    }
    return SecretBox.fromSetting(readFileSync(file, 'utf8').trim());
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return VERSION_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /**
   * A keyed digest (HMAC-SHA256, hex) of a low-entropy value such as a personal identity number:
   * equal values give equal digests, so a unique index can compare them, while without the key
   * nobody can test guesses against it as they could against a bare hash. `purpose` gives each use
   * its own subkey, so digests of one kind never match another's.
   */
  digest(purpose: string, value: string): string {
    const subkey = createHmac('sha256', this.#key).update(`digest:${purpose}`).digest();
    return createHmac('sha256', subkey).update(value, 'utf8').digest('hex');
  }

  decrypt(sealed: string): string {
    if (!sealed.startsWith(VERSION_PREFIX)) throw new Error('unknown ciphertext format');
    const raw = Buffer.from(sealed.slice(VERSION_PREFIX.length), 'base64');
    const iv = raw.subarray(0, IV_BYTES);
    const tag = raw.subarray(IV_BYTES, IV_BYTES + 16);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + 16)), decipher.final()]).toString('utf8');
  }
}
