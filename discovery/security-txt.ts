import { DISCOVERY_PATHS } from './discovery-paths.ts';

/** RFC 9116 asks for an Expires under a year away; renewing daily keeps a running process valid. */
const VALID_FOR_DAYS = 180;
const DAY_MS = 86_400_000;

/**
 * /.well-known/security.txt (RFC 9116). The contact is `security@<PUBLIC_BASE_URL host>` until
 * configuration has a setting for it (proposed: SECURITY_CONTACT).
 */
export function renderSecurityTxt(publicBaseUrl: string, now: Date): string {
  const host = new URL(publicBaseUrl).hostname;
  // Whole days, so the text (and any cache of it) changes at most once a day.
  const expires = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + VALID_FOR_DAYS * DAY_MS);
  return [
    `Contact: mailto:security@${host}`,
    `Expires: ${expires.toISOString()}`,
    'Preferred-Languages: en, sv',
    `Canonical: ${publicBaseUrl}${DISCOVERY_PATHS.securityTxt}`,
    '',
  ].join('\n');
}
