import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { DeliveryId, WebhookId } from '../../../domain/webhooks/schemas.ts';

export const WebhookParams = z.object({ companyId: CompanyId, id: WebhookId });
export const DeliveryParams = z.object({ id: DeliveryId });
