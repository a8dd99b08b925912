import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { OPERATION_ID } from '../../../domain/operations/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';

export const OperationParams = z.object({
  companyId: CompanyId,
  operationId: z.uuid().describe('Operation id (uuid), from the 202 answer that started it or listOperations.'),
});

/** The example operation's path, for the operations' worked examples. */
export const exampleParams = { companyId: COMPANY_ID, operationId: OPERATION_ID };
