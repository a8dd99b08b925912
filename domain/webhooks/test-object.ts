import { toCompany } from '../companies/schemas.ts';
import { EVENT_CATALOG, type EventType } from '../events/types.ts';

type CompanyRow = Parameters<typeof toCompany>[0];

/**
 * The `data.object` of a test delivery: the catalogue's example for the webhook's event type,
 * made to belong to the company the delivery's envelope names — its `company_id` set to it, or,
 * for the company's own events (whose object is the company), the real company itself. Checked
 * against the type's published schema, as every emitted payload is.
 */
export function testObjectFor(type: EventType, company: CompanyRow): unknown {
  const entry = EVENT_CATALOG[type];
  const example = entry.example as Record<string, unknown>;
  const object = 'company_id' in example ? { ...example, company_id: company.id } : toCompany(company);
  // Parsing also drops what the type's object does not carry (e.g. created_at of a company).
  return entry.object.parse(object);
}
