import { eventExample } from '../../../domain/events/catalog.ts';
import { Event } from '../../../domain/events/schemas.ts';

export const COMPANY_ID = '8b0f6c2e-4d1a-4e3b-9f7c-2a5d8e1b6c40';
export const EVENT_ID = '5d2c8e1a-7b4f-4a39-8c6d-1e9f3b7a2d50';

/** A stored event as the feed returns it: real events carry uuid ids. */
export const committedEventExample = Event.parse({ ...eventExample('journal_entry.committed'), id: EVENT_ID });
