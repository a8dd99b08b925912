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
import { listEvents } from './operations/events/list.ts';
import { getEvent } from './operations/events/get.ts';
import { listEventTypes } from './operations/events/list-types.ts';
import { createEmployee, getEmployee, listEmployees, updateEmployee } from './operations/payroll/employees.ts';
import { approveSalaryRun, bookSalaryRun, cancelSalaryRun, createSalaryRun, getSalaryRun, listSalaryRuns } from './operations/payroll/salary-runs.ts';
import { generateAgi, getAgi, listAgis, submitAgi } from './operations/tax/agi.ts';
import { cancelOperation, deleteOperation, getOperation, listOperations } from './operations/operations/operations.ts';
import { closeFiscalYear } from './operations/ledger/close-fiscal-year.ts';
import { importSie } from './operations/ledger/import-sie.ts';
import { recoverWebhookDeliveries } from './operations/webhooks/recover-deliveries.ts';
import { generateVatReturn, getVatReturn, listVatReturns, submitVatReturn } from './operations/tax/vat-returns.ts';
import { getAccountBalances, getBalanceSheet, getIncomeStatement, getTrialBalance } from './operations/reports/statements.ts';
import { getGeneralLedger } from './operations/reports/general-ledger.ts';
import { exportSie } from './operations/reports/export-sie.ts';
import { uploadDocument } from './operations/documents/upload.ts';
import { listDocuments } from './operations/documents/list.ts';
import { getDocument } from './operations/documents/get.ts';
import { downloadDocument } from './operations/documents/download.ts';
import { attachDocument } from './operations/documents/attach.ts';
import { detachDocument } from './operations/documents/detach.ts';
import { deleteDocument } from './operations/documents/delete.ts';
import { listWebhooks } from './operations/webhooks/list.ts';
import { createWebhook } from './operations/webhooks/create.ts';
import { getWebhook } from './operations/webhooks/get.ts';
import { updateWebhook } from './operations/webhooks/update.ts';
import { deleteWebhook } from './operations/webhooks/delete.ts';
import { testWebhook } from './operations/webhooks/test.ts';
import { listWebhookDeliveries } from './operations/webhooks/list-deliveries.ts';
import { retryWebhookDelivery } from './operations/webhooks/retry-delivery.ts';
import { rotateWebhookSecret } from './operations/webhooks/rotate-secret.ts';
import { expirePreviousWebhookSecret } from './operations/webhooks/expire-previous-secret.ts';
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
  closeFiscalYear,
  createJournalEntry,
  listJournalEntries,
  getJournalEntry,
  commitJournalEntry,
  reverseJournalEntry,
  deleteJournalEntry,
  listEvents,
  getEvent,
  listEventTypes,
  listEmployees,
  getEmployee,
  createEmployee,
  updateEmployee,
  listSalaryRuns,
  getSalaryRun,
  createSalaryRun,
  approveSalaryRun,
  bookSalaryRun,
  cancelSalaryRun,
  listAgis,
  getAgi,
  generateAgi,
  submitAgi,
  listVatReturns,
  getVatReturn,
  generateVatReturn,
  submitVatReturn,
  listOperations,
  getOperation,
  cancelOperation,
  deleteOperation,
  getAccountBalances,
  getTrialBalance,
  getIncomeStatement,
  getBalanceSheet,
  getGeneralLedger,
  exportSie,
  importSie,
  uploadDocument,
  listDocuments,
  getDocument,
  downloadDocument,
  attachDocument,
  detachDocument,
  deleteDocument,
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  testWebhook,
  rotateWebhookSecret,
  expirePreviousWebhookSecret,
  listWebhookDeliveries,
  retryWebhookDelivery,
  recoverWebhookDeliveries,
  listCapabilities,
  getCapability,
]);

export type { Operation } from './define-operation.ts';
