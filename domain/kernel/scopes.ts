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
