import type { KindDefinition } from '../runner.ts';
import type { OperationKind } from '../schemas.ts';
import { closeFiscalYearJob } from './close-fiscal-year.ts';
import { recoverDeliveriesJob } from './recover-deliveries.ts';
import { importSieJob } from './import-sie.ts';

/** What each kind runs and the scopes it acts with (it was authorised when it was queued). */
export const OPERATION_KIND_RUNNERS: Partial<Record<OperationKind, KindDefinition>> = {
  close_fiscal_year: { handler: closeFiscalYearJob, scopes: ['compliance:write', 'companies:write', 'companies:read'] },
  sie_import: { handler: importSieJob, scopes: ['companies:write', 'companies:read'] },
  recover_webhook_deliveries: { handler: recoverDeliveriesJob, scopes: ['webhooks:manage'] },
};
