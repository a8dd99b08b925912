import { z } from 'zod';

/** Every scope a key can hold (DESIGN.md §6). Payroll data needs `payroll:read` on top. */
export const SCOPES = [
  'companies:read',
  'companies:write',
  'events:read',
  'webhooks:manage',
  'operations:read',
  'operations:write',
  'documents:read',
  'documents:write',
  'compliance:read',
  'compliance:write',
  'payroll:read',
] as const;

export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const hasScope = (held: readonly string[], required: Scope): boolean => held.includes(required);

/** What each scope lets a caller do, in a person's words (the OAuth consent page shows these). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  'companies:read': 'read companies, accounts, journal entries, periods and reports',
  'companies:write': 'change company data: accounts, journal entries, periods',
  'events:read': 'read the event feed',
  'webhooks:manage': 'create, change and delete webhooks',
  'operations:read': 'read long-running operations',
  'operations:write': 'start and cancel long-running operations (e.g. SIE imports)',
  'documents:read': 'read uploaded documents',
  'documents:write': 'upload, attach and delete documents',
  'compliance:read': 'read VAT returns',
  'compliance:write': 'generate and submit VAT returns',
  'payroll:read': 'read employees, salary runs and AGI declarations',
};

/** Scopes that reach personal data of employees: consent calls them out and never pre-ticks them. */
export const PAYROLL_SCOPES: readonly Scope[] = ['payroll:read'];
