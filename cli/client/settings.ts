import { z } from 'zod';
import { API_PREFIX } from '../../registry/api-prefix.ts';
import { usageError } from './errors.ts';

/**
 * Where the CLI sends requests and as whom: flags win over the environment. Parsed once here,
 * as the server parses its settings once in domain/kernel/config.ts.
 */

/** `npm start` listens here by default. */
export const DEFAULT_BASE_URL = 'http://localhost:3000';

// An empty variable (`ACCOUNTING_API_KEY= accounting …`) means unset, as in most shells' idiom.
const Setting = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

const Environment = z.object({
  ACCOUNTING_API_URL: Setting,
  ACCOUNTING_API_KEY: Setting,
  /** Used where a command needs --company and none is given. */
  ACCOUNTING_COMPANY_ID: Setting,
});

export interface Settings {
  /** The API root including /api/v1, without a trailing slash. */
  apiBase: string;
  apiKey: string | undefined;
  defaultCompanyId: string | undefined;
}

export function resolveSettings(env: Record<string, string | undefined>, flags: { baseUrl?: string; apiKey?: string }): Settings {
  const parsed = Environment.parse(env);
  const raw = flags.baseUrl ?? parsed.ACCOUNTING_API_URL ?? DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`The API URL "${raw}" is not a URL.`, 'Pass --base-url http://host:port or set ACCOUNTING_API_URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`The API URL must be http or https, not ${url.protocol}`);
  // Accept the server root or the API root alike.
  const root = url.href.replace(/\/+$/, '').replace(new RegExp(`${API_PREFIX.replace(/\//g, '\\/')}$`), '');
  return { apiBase: `${root}${API_PREFIX}`, apiKey: flags.apiKey ?? parsed.ACCOUNTING_API_KEY, defaultCompanyId: parsed.ACCOUNTING_COMPANY_ID };
}
