import { Operation } from '../../../domain/operations/schemas.ts';
import { startSieImport } from '../../../domain/operations/jobs/import-sie.ts';
import { sieImportKind } from '../../../domain/operations/kinds/sie-import.ts';
import { queuedOperationExample } from '../../../domain/operations/examples.ts';
import { MAX_SIE_BYTES, SIE_UPLOAD_CONTENT_TYPES } from '../../../domain/sie/import.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const importSie = defineOperation({
  id: 'importSie',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/sie-imports',
  summary: 'Import an SIE 4 file',
  description:
    'Starts an operation (202; poll getOperation) importing an SIE 4 file: its fiscal year, missing accounts, #IB as an opening entry, each #VER in its own series. ' +
    'Nothing shows until it completes; a failure (naming the bad line) or cancel leaves nothing. dry_run checks the file at once.',
  auth: { scope: sieImportKind.scope, also: ['operations:write'] },
  risk: 'L3',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'operation',
  errors: ['SIE_INVALID'],
  input: {
    params: CompanyParams,
    file: {
      field: 'file',
      maxBytes: MAX_SIE_BYTES,
      contentTypes: SIE_UPLOAD_CONTENT_TYPES,
      description: 'The SIE 4 file (as exportSie writes it).',
      exampleName: 'bokforing-2026.se',
    },
  },
  output: Operation,
  status: 202,
  examples: {
    params: { companyId: COMPANY_ID },
    response: { ...queuedOperationExample, kind: sieImportKind.kind },
  },
  surfaces: ['api', 'mcp', 'cli'],
  // The pipeline hands every operation that declares input.file its file.
  handler: async (ctx, { params, file }) => ({ data: await startSieImport(ctx, params.companyId, file!) }),
});
