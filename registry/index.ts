import { buildRegistry } from './build-registry.ts';
import { getHealth } from './operations/platform/get-health.ts';
import { listOAuthGrants } from './operations/platform/list-oauth-grants.ts';
import { revokeOAuthGrant } from './operations/platform/revoke-oauth-grant.ts';
import { listCompanies } from './operations/companies/list-companies.ts';
import { getCompany } from './operations/companies/get-company.ts';
import { updateCompany } from './operations/companies/update-company.ts';
import { listAccounts } from './operations/ledger/list-accounts.ts';
import { createAccount } from './operations/ledger/create-account.ts';
import { updateAccount } from './operations/ledger/update-account.ts';
import { listDimensions } from './operations/ledger/list-dimensions.ts';
import { createDimension } from './operations/ledger/create-dimension.ts';
import { updateDimension } from './operations/ledger/update-dimension.ts';
import { listDimensionObjects } from './operations/ledger/list-dimension-objects.ts';
import { createDimensionObject } from './operations/ledger/create-dimension-object.ts';
import { updateDimensionObject } from './operations/ledger/update-dimension-object.ts';
import { listFiscalYears } from './operations/ledger/list-fiscal-years.ts';
import { createFiscalYear } from './operations/ledger/create-fiscal-year.ts';
import { listPeriods } from './operations/ledger/list-periods.ts';
import { lockPeriod } from './operations/ledger/lock-period.ts';
import { unlockPeriod } from './operations/ledger/unlock-period.ts';
import { closeFiscalYear } from './operations/ledger/close-fiscal-year.ts';
import { createJournalEntry } from './operations/ledger/create-journal-entry.ts';
import { listJournalEntries } from './operations/ledger/list-journal-entries.ts';
import { getJournalEntry } from './operations/ledger/get-journal-entry.ts';
import { commitJournalEntry } from './operations/ledger/commit-journal-entry.ts';
import { reverseJournalEntry } from './operations/ledger/reverse-journal-entry.ts';
import { deleteJournalEntry } from './operations/ledger/delete-journal-entry.ts';
import { listEvents } from './operations/events/list-events.ts';
import { getEvent } from './operations/events/get-event.ts';
import { listEventTypes } from './operations/events/list-event-types.ts';
import { listEmployees } from './operations/payroll/list-employees.ts';
import { getEmployee } from './operations/payroll/get-employee.ts';
import { createEmployee } from './operations/payroll/create-employee.ts';
import { updateEmployee } from './operations/payroll/update-employee.ts';
import { listSalaryRuns } from './operations/payroll/list-salary-runs.ts';
import { getSalaryRun } from './operations/payroll/get-salary-run.ts';
import { createSalaryRun } from './operations/payroll/create-salary-run.ts';
import { approveSalaryRun } from './operations/payroll/approve-salary-run.ts';
import { bookSalaryRun } from './operations/payroll/book-salary-run.ts';
import { cancelSalaryRun } from './operations/payroll/cancel-salary-run.ts';
import { listAgis } from './operations/tax/list-agis.ts';
import { getAgi } from './operations/tax/get-agi.ts';
import { generateAgi } from './operations/tax/generate-agi.ts';
import { submitAgi } from './operations/tax/submit-agi.ts';
import { listVatReturns } from './operations/tax/list-vat-returns.ts';
import { getVatReturn } from './operations/tax/get-vat-return.ts';
import { generateVatReturn } from './operations/tax/generate-vat-return.ts';
import { submitVatReturn } from './operations/tax/submit-vat-return.ts';
import { listOperations } from './operations/operations/list-operations.ts';
import { getOperation } from './operations/operations/get-operation.ts';
import { cancelOperation } from './operations/operations/cancel-operation.ts';
import { deleteOperation } from './operations/operations/delete-operation.ts';
import { getAccountBalances } from './operations/reports/get-account-balances.ts';
import { getTrialBalance } from './operations/reports/get-trial-balance.ts';
import { getIncomeStatement } from './operations/reports/get-income-statement.ts';
import { getBalanceSheet } from './operations/reports/get-balance-sheet.ts';
import { getGeneralLedger } from './operations/reports/get-general-ledger.ts';
import { exportSie } from './operations/reports/export-sie.ts';
import { importSie } from './operations/ledger/import-sie.ts';
import { uploadDocument } from './operations/documents/upload-document.ts';
import { listDocuments } from './operations/documents/list-documents.ts';
import { getDocument } from './operations/documents/get-document.ts';
import { downloadDocument } from './operations/documents/download-document.ts';
import { attachDocument } from './operations/documents/attach-document.ts';
import { detachDocument } from './operations/documents/detach-document.ts';
import { deleteDocument } from './operations/documents/delete-document.ts';
import { listWebhooks } from './operations/webhooks/list-webhooks.ts';
import { createWebhook } from './operations/webhooks/create-webhook.ts';
import { getWebhook } from './operations/webhooks/get-webhook.ts';
import { updateWebhook } from './operations/webhooks/update-webhook.ts';
import { deleteWebhook } from './operations/webhooks/delete-webhook.ts';
import { testWebhook } from './operations/webhooks/test-webhook.ts';
import { rotateWebhookSecret } from './operations/webhooks/rotate-webhook-secret.ts';
import { expirePreviousWebhookSecret } from './operations/webhooks/expire-previous-webhook-secret.ts';
import { listWebhookDeliveries } from './operations/webhooks/list-webhook-deliveries.ts';
import { retryWebhookDelivery } from './operations/webhooks/retry-webhook-delivery.ts';
import { recoverWebhookDeliveries } from './operations/webhooks/recover-webhook-deliveries.ts';
import { listCapabilities } from './operations/discovery/list-capabilities.ts';
import { getCapability } from './operations/discovery/get-capability.ts';

/**
 * Every operation, in the order the docs list them. This explicit list is the single source
 * that REST routes, OpenAPI, MCP tools, docs, llms.txt, skills and capability records read.
 */
export const registry = buildRegistry([
  getHealth,
  listOAuthGrants,
  revokeOAuthGrant,
  listCompanies,
  getCompany,
  updateCompany,
  listAccounts,
  createAccount,
  updateAccount,
  listDimensions,
  createDimension,
  updateDimension,
  listDimensionObjects,
  createDimensionObject,
  updateDimensionObject,
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
