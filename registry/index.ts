import { buildRegistry } from './build-registry.ts';
import { getHealth } from './operations/platform/health.ts';
import { listCompanies } from './operations/companies/list.ts';
import { updateCompany } from './operations/companies/update.ts';
import { getCompany } from './operations/companies/get.ts';
import { createAccount, listAccounts, updateAccount } from './operations/ledger/accounts.ts';
import { createFiscalYear, listFiscalYears, listPeriods, lockPeriod, unlockPeriod } from './operations/ledger/fiscal-years.ts';
import {
  commitJournalEntry,
  createJournalEntry,
  deleteJournalEntry,
  getJournalEntry,
  listJournalEntries,
  reverseJournalEntry,
} from './operations/ledger/journal-entries.ts';
import { listWebhooks } from './operations/webhooks/list.ts';
import { createWebhook } from './operations/webhooks/create.ts';
import { getWebhook } from './operations/webhooks/get.ts';
import { updateWebhook } from './operations/webhooks/update.ts';
import { deleteWebhook } from './operations/webhooks/delete.ts';
import { testWebhook } from './operations/webhooks/test.ts';
import { listWebhookDeliveries } from './operations/webhooks/list-deliveries.ts';
import { retryWebhookDelivery } from './operations/webhooks/retry-delivery.ts';
import { listCapabilities } from './operations/discovery/list-capabilities.ts';
import { getCapability } from './operations/discovery/get-capability.ts';

/**
 * Every operation, in the order the docs list them. This explicit list is the single source
 * that REST routes, OpenAPI, MCP tools, docs, llms.txt, skills and capability records read.
 */
export const registry = buildRegistry([
  getHealth,
  listCompanies,
  getCompany,
  updateCompany,
  listAccounts,
  createAccount,
  updateAccount,
  listFiscalYears,
  createFiscalYear,
  listPeriods,
  lockPeriod,
  unlockPeriod,
  createJournalEntry,
  listJournalEntries,
  getJournalEntry,
  commitJournalEntry,
  reverseJournalEntry,
  deleteJournalEntry,
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  testWebhook,
  listWebhookDeliveries,
  retryWebhookDelivery,
  listCapabilities,
  getCapability,
]);

export type { Operation } from './define-operation.ts';
