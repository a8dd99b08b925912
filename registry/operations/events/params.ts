import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { EventId } from '../../../domain/events/schemas.ts';

export const EventParams = z.object({ companyId: CompanyId, eventId: EventId });
