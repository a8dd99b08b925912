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
    description:
      'The companies (bookkeeping entities) your API key can act on. Every company-scoped operation needs a company id from the companies list.',
  },
  webhooks: {
    title: 'Webhooks',
    description:
      'Subscriptions that receive signed HTTP POST deliveries of events, their delivery log, test deliveries and retries.',
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
  name: 'events',
  title: 'Events',
  description:
    'Webhook event deliveries: what the service POSTs to a subscribed webhook_url, signed with X-Service-Signature.',
} as const;
