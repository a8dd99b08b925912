import type { Operation } from './define-operation.ts';

/**
 * How an operation is spelled on the command line (`accounting webhooks create --company …`),
 * derived mechanically from its id, group and field names and never written by hand. The CLI
 * client (cli/client/), the capability records and the reference docs all read it from here.
 */

/** The executable's name: package.json's `bin` entry. */
export const CLI_NAME = 'accounting';

/**
 * Exit codes by class of failure, so a script can branch on what went wrong without parsing
 * text. HTTP answers map by status; everything the CLI itself refuses is usage.
 */
export const CLI_EXIT = {
  ok: 0,
  /** The server failed (5xx), was unreachable, or answered something unreadable; also 429. */
  server: 1,
  /** The command line is wrong: unknown command or flag, missing path id, unreadable --data. */
  usage: 2,
  /** 401 or 403: no key, a bad key, or a key without the scope. */
  auth: 3,
  notFound: 4,
  /** Any other 4xx: the request was understood and refused (validation, conflict, idempotency). */
  validation: 5,
  /** `--wait`: the operation waited on was cancelled (a failed one exits with its error's class). */
  cancelled: 6,
} as const;

export const CLI_EXIT_TEXT = `Exit codes: ${CLI_EXIT.ok} ok, ${CLI_EXIT.server} server or network error, ${CLI_EXIT.usage} usage, ${CLI_EXIT.auth} authentication or scope, ${CLI_EXIT.notFound} not found, ${CLI_EXIT.validation} validation or other refusal, ${CLI_EXIT.cancelled} operation cancelled (--wait).`;

export type FieldLocation = 'path' | 'query' | 'body';

export const hasCliSurface = (op: Pick<Operation, 'surfaces'>): boolean => op.surfaces.includes('cli');

const words = (camel: string): string[] => camel.split(/(?=[A-Z])/).map((word) => word.toLowerCase());

/** `companies` → `company`, `webhooks` → `webhook`; groups are plain English plurals. */
const singular = (noun: string): string => (noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') ? noun.slice(0, -1) : noun);

/**
 * The command within its group: the id without the group's noun, kebab-case.
 * `createWebhook` in webhooks → `create`; `listWebhookDeliveries` → `list-deliveries`;
 * `listEventTypes` in events → `list-types`. The verb (the first word) always stays.
 */
export function cliSubcommand(op: Pick<Operation, 'id' | 'group'>): string {
  const parts = words(op.id);
  const nouns = new Set<string>([op.group, singular(op.group)]);
  const index = parts.findIndex((word, i) => i > 0 && nouns.has(word));
  return (index === -1 ? parts : parts.filter((_, i) => i !== index)).join('-');
}

/** The command a person types, without flags: `accounting webhooks create`. */
export const cliCommandLine = (op: Pick<Operation, 'id' | 'group'>): string => `${CLI_NAME} ${op.group} ${cliSubcommand(op)}`;

/**
 * A field's flag, without dashes. Path ids lose their `Id` (`companyId` → `company`,
 * `fiscalYearId` → `fiscal-year`; a bare `id` stays `id`); other names go kebab-case
 * (`event_type` → `event-type`).
 */
export function cliFlagName(field: string, location: FieldLocation): string {
  const base = location === 'path' && field !== 'id' && field.endsWith('Id') ? field.slice(0, -2) : field;
  return base
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}
