import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryHeaders } from '../../dispatcher/delivery-headers.ts';
import { REQUEST_TIMEOUT_MS } from '../../domain/webhooks/retry-schedule.ts';
import { generateWebhookSecret } from '../../domain/webhooks/secrets.ts';
import { CLI_NAME } from '../../registry/cli-command.ts';
import { CliError, EXIT, usageError } from './errors.ts';
import { send } from './http.ts';
import { buildRequest } from './request.ts';
import type { Io } from './run-command.ts';
import type { Settings } from './settings.ts';
import type { CommandTable } from './spec.ts';

/**
 * `accounting listen --forward-to <url>`: local webhook development without a public URL, as
 * `stripe listen` does. It follows the events feed (listEvents) from the moment it starts and
 * POSTs each event to the local URL with the very headers and signature a real delivery has
 * (dispatcher/delivery-headers.ts), keyed with a secret printed at start.
 */

export const LISTEN_FLAGS = {
  'forward-to': 'Local URL that receives each event as a signed POST, e.g. http://localhost:8080/hook.',
  events: 'Only these event types, comma-separated (default: every type your key may see).',
  company: 'Company whose events to follow (default: $ACCOUNTING_COMPANY_ID, or your only company).',
  secret: 'Signing secret to use instead of a fresh one, so a receiver keeps its configuration across runs.',
} as const;

/** How often the feed is asked for new events once it is caught up. */
const POLL_INTERVAL_MS = 1000;

export interface ListenOptions {
  forwardTo: string;
  events?: string;
  company?: string;
  secret?: string;
  json: boolean;
}

interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
}

export function listenHelp(): string {
  const rows = Object.entries(LISTEN_FLAGS).map(([flag, text]) => `  --${flag} <value>`.padEnd(24) + text);
  return [
    `${CLI_NAME} listen: forward new events to a local receiver, signed exactly like webhook deliveries.`,
    '',
    `Usage: ${CLI_NAME} listen --forward-to <url> [--events a,b] [--company <id>] [--secret <secret>] [--json]`,
    '',
    ...rows,
    `${`  --json`.padEnd(24)}One JSON line per forwarded event on stdout (event id, type, receiver status).`,
    '',
    'It follows the events feed (events list) from the moment it starts; the receiver verifies the X-Service-Signature',
    'header with the secret printed at start (verifySignature in dispatcher/sign.ts). Needs a key with events:read.',
    "Each event is posted once; the receiver's status is shown per event. Stop with Ctrl-C.",
    '',
  ].join('\n');
}

export async function listen(table: CommandTable, options: ListenOptions, settings: Settings, io: Io, signal: AbortSignal): Promise<number> {
  const feed = table.commands.find((spec) => spec.op.id === 'listEvents');
  const companies = table.commands.find((spec) => spec.op.id === 'listCompanies');
  if (!feed || !companies) throw new CliError('This build has no events feed to follow.', EXIT.usage);
  let target: URL;
  try {
    target = new URL(options.forwardTo);
  } catch {
    throw usageError(`--forward-to "${options.forwardTo}" is not a URL.`, 'For example: --forward-to http://localhost:8080/hook');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw usageError('--forward-to must be an http or https URL.');

  const companyId = options.company ?? settings.defaultCompanyId ?? (await onlyCompany(companies, settings, io));
  const secret = options.secret ?? generateWebhookSecret();
  const fields = new Map<string, string[]>([['company', [companyId]], ...(options.events ? [['type', [options.events]] as [string, string[]]] : [])]);
  const limitFlag = feed.flags.find((flag) => flag.field === 'limit');
  const pageSize = String(limitFlag?.maximum ?? 50);
  const page = async (query: Record<string, string>) => {
    const answer = await send(await buildRequest(feed, { fields, dryRun: false, query: { limit: pageSize, ...query } }, settings, io), { signal });
    if (answer.kind !== 'json') throw new CliError(`The events feed answered ${answer.kind}, not JSON.`, EXIT.server);
    const pagination = (answer.meta.pagination ?? {}) as { has_more?: boolean; next_cursor?: string | null };
    return { events: (answer.data as { events: FeedEvent[] }).events, pagination, date: answer.headers.get('date') };
  };

  // "From now on" by the server's clock (its Date header), so a skewed local clock cannot skip events.
  const probe = await page({ limit: '1' });
  const startedAt = new Date(probe.date ? Date.parse(probe.date) : Date.now()).toISOString();
  io.stderr.write(
    `Ready. Forwarding ${options.events ? `${options.events} events` : 'events'} of company ${companyId} to ${target.href} (from ${startedAt}).\n` +
      `Signing secret: ${secret}\n` +
      'Verify the X-Service-Signature header with it. Ctrl-C to stop.\n',
  );

  let cursor: string | undefined;
  while (!signal.aborted) {
    let caughtUp = true;
    try {
      const result = await page(cursor ? { cursor } : { created_gte: startedAt });
      for (const event of result.events) {
        if (signal.aborted) break;
        await forward(event, target, secret, options.json, io);
      }
      cursor = result.pagination.next_cursor ?? cursor;
      caughtUp = !result.pagination.has_more;
    } catch (error) {
      if (signal.aborted) break;
      // A restarting or briefly unreachable server is waited out; a refusal (key, scope, company) ends it.
      if (!(error instanceof CliError) || error.exitCode !== EXIT.server) throw error;
      io.stderr.write(`Events feed unavailable (${error.message}); retrying.\n`);
    }
    if (caughtUp) await sleep(POLL_INTERVAL_MS, undefined, { signal }).catch(() => undefined);
  }
  io.stderr.write('Stopped.\n');
  return EXIT.ok;
}

async function onlyCompany(companies: CommandTable['commands'][number], settings: Settings, io: Io): Promise<string> {
  const answer = await send(await buildRequest(companies, { fields: new Map(), dryRun: false, query: { limit: '2' } }, settings, io));
  const list = answer.kind === 'json' ? ((answer.data as { companies?: { id: string; name: string }[] }).companies ?? []) : [];
  if (list.length === 1) return list[0]!.id;
  throw usageError(
    list.length === 0 ? 'This key reaches no company.' : 'This key reaches several companies; say which one.',
    `Pass --company <id> or set ACCOUNTING_COMPANY_ID (${CLI_NAME} companies list shows them).`,
  );
}

/** One POST to the receiver, as a delivery attempt; its answer is reported, never retried. */
async function forward(event: FeedEvent, target: URL, secret: string, json: boolean, io: Io): Promise<void> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    secret,
    body,
    eventType: event.type,
    deliveryId: randomUUID(),
    eventId: event.id,
    timestampSeconds: Math.floor(Date.now() / 1000),
  });
  const started = performance.now();
  let status: number | null = null;
  let failure: string | null = null;
  try {
    const response = await fetch(target, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await response.arrayBuffer();
    status = response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    failure = cause?.code ?? (error as Error).name;
  }
  const ms = Math.round(performance.now() - started);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ event_id: event.id, type: event.type, created_at: event.created_at, status, ok: status !== null && status < 300, error: failure, ms })}\n`,
    );
    return;
  }
  const outcome = status !== null ? `${status}${status < 300 ? ' ok' : ''}` : `failed: ${failure}`;
  io.stdout.write(`${event.created_at}  ${event.type}  ${event.id}  -> ${outcome} (${ms} ms)\n`);
}
