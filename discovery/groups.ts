import type { Group } from '../registry/define-operation.ts';
import type { DescribedOperation } from './operation-traits.ts';

/**
 * Titles and descriptions of the registry's groups (OpenAPI tags, doc pages, skills). A group
 * without an entry still works with a generated title, so a new group needs no change here;
 * these texts belong in the registry beside GROUPS (proposed), and move there when it has them.
 */
export interface GroupInfo {
  title: string;
  description: string;
}

const GROUP_INFO: Partial<Record<Group, GroupInfo>> = {
  platform: {
    title: 'Platform',
    description: 'Service health: whether the API and its database answer. Public, no API key needed.',
  },
  companies: {
    title: 'Companies',
    description: 'The companies (bookkeeping entities) your API key can act on. Every company-scoped operation needs a company id from the companies list.',
  },
  ledger: {
    title: 'Ledger',
    description:
      'The books: chart of accounts (BAS), fiscal years and monthly periods, and journal entries (verifications) that are drafted, committed with a gapless number, and corrected only by reversal.',
  },
  reports: {
    title: 'Reports',
    description:
      'Statements over committed entries: account balances, trial balance, income statement, balance sheet, general ledger; PDF by content negotiation and SIE 4 export.',
  },
  documents: {
    title: 'Documents',
    description: 'Receipts and invoices uploaded as evidence (underlag) and attached to journal entries.',
  },
  operations: {
    title: 'Operations',
    description: 'Long-running work (closing a fiscal year, SIE import, bulk delivery recovery): start it, then poll the operation until it finishes.',
  },
  events: {
    title: 'Events',
    description: 'The event feed: every event the service emitted, in order, for catching up after an outage; and the catalogue of event types.',
  },
  payroll: {
    title: 'Payroll',
    description: 'Employees and monthly salary runs, booked to the ledger. Personal data: every operation needs payroll:read.',
  },
  tax: {
    title: 'Tax returns',
    description:
      "VAT returns (every box of Skatteverket's form) and employer declarations (AGI) from the books, also as the XML files Skatteverket's e-services take (Accept: application/xml). Submitting freezes a return (a VAT return also books its settlement entry); nothing is sent: a person signs and uploads the file.",
  },
  webhooks: {
    title: 'Webhooks',
    description: 'Subscriptions that receive signed HTTP POST deliveries of events, their delivery log, test deliveries and retries.',
  },
  discovery: {
    title: 'Discovery',
    description: 'Machine-readable descriptions of this API for agents: capability records of every operation.',
  },
};

export function groupInfo(group: Group): GroupInfo {
  return GROUP_INFO[group] ?? { title: group.charAt(0).toUpperCase() + group.slice(1), description: `Operations of the ${group} group.` };
}

/** Groups that have at least one operation, in the order their first operation appears. */
export function groupsInUse(operations: readonly DescribedOperation[]): Group[] {
  return [...new Set(operations.map((op) => op.group))];
}

/** The tag that lists webhook event types (top-level `webhooks` of the document). */
export const EVENTS_TAG = {
  // Not 'events': that is the registry group of the event-feed operations.
  name: 'event-types',
  title: 'Event types',
  description:
    'Webhook event deliveries: what the service POSTs to each webhook_url subscribed to the event type, signed with X-Service-Signature (verify it before trusting the body).',
} as const;

/** Groups that are plumbing, not what the service is for: left out of the one-paragraph summary. */
const NOT_THE_POINT: ReadonlySet<Group> = new Set(['platform', 'discovery', 'operations']);

const INTRODUCTION = 'A multi-company bookkeeping service for Swedish companies (BAS accounts; amounts are whole öre as integers, 12500 = 125,00 kr).';

const mainGroups = (operations: readonly DescribedOperation[]): Group[] => groupsInUse(operations).filter((group) => !NOT_THE_POINT.has(group));

/**
 * What the service is, in one paragraph, from the groups it serves: the opening of llms.txt
 * (issue 29: it described only companies and webhooks, not the books).
 */
export function serviceSummary(operations: readonly DescribedOperation[]): string {
  const areas = mainGroups(operations).map((group) => `**${groupInfo(group).title}**: ${groupInfo(group).description.replace(/\.$/, '')}`);
  return `${INTRODUCTION} ${areas.join('. ')}.`;
}

/** The groups' titles as one phrase: "companies, ledger, … and webhooks". */
const areaList = (operations: readonly DescribedOperation[]): string => {
  const titles = mainGroups(operations).map((group) => groupInfo(group).title.toLowerCase());
  return titles.length > 1 ? `${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}` : (titles[0] ?? '');
};

/** One line: the OpenAPI `info.summary`. */
export const serviceOneLine = (operations: readonly DescribedOperation[]): string =>
  `Multi-company bookkeeping for Swedish companies: ${areaList(operations)}.`;

/**
 * The opening of the OpenAPI description, which the tags follow: each tag's own description
 * says what its group holds, so this names the groups once instead of repeating those texts.
 */
export const serviceIntroduction = (operations: readonly DescribedOperation[]): string =>
  `${INTRODUCTION} Its parts, each a tag that says what it holds: ${areaList(operations)}.`;
