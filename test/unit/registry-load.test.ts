import { describe, expect, it } from 'vitest';
import { registry } from '../../registry/index.ts';
import { buildRegistry, exampleProblems } from '../../registry/build-registry.ts';
import { PIPELINE_ONLY_ERRORS, type Operation } from '../../registry/define-operation.ts';

/** The registry's load-time checks, exercised directly with broken declarations. */
const base = registry.byId('retryWebhookDelivery')!;
const load = (overrides: Partial<Operation>) => () => buildRegistry([{ ...base, ...overrides }]);

describe('registry load-time checks', () => {
  it('every operation declares the domain errors its handler throws, from the catalogue', () => {
    for (const op of registry.operations) {
      expect(op.errors, `${op.id} declares no errors list`).toBeDefined();
    }
    // Retry answers 409 for a delivery still live: declared where OpenAPI and the docs read it.
    expect(base.errors).toContain('CONFLICT');
  });

  it('refuses a code listed twice or one only the pipeline produces', () => {
    expect(load({ errors: ['CONFLICT', 'CONFLICT'] })).toThrow(/errors lists a code twice/);
    for (const code of PIPELINE_ONLY_ERRORS) {
      expect(load({ errors: [code] })).toThrow(new RegExp(`${code} comes from the pipeline`));
    }
    expect(load({ errors: ['NOSUCHCODE' as never] })).toThrow(/has no catalogue entry/);
  });

  it("every served operation's examples parse against their schemas (checked here, not at every start)", () => {
    expect(registry.operations.flatMap(exampleProblems)).toEqual([]);
    // The check itself finds a broken one.
    expect(exampleProblems({ ...base, examples: { ...base.examples, params: { id: 'not-a-uuid' } } })).toEqual([
      expect.stringMatching(/^retryWebhookDelivery: example params does not match its schema/),
    ]);
  });

  it('refuses an example that breaks its schema (the check examples-replay relies on)', () => {
    expect(load({ examples: { ...base.examples, params: { id: 'not-a-uuid' } } })).toThrow(/example params does not match its schema/);
    expect(load({ examples: { ...base.examples, response: { ...(base.examples.response as object), status: 'lost' } } })).toThrow(
      /example response does not match its schema/,
    );
  });

  it("refuses database: 'bare' on a write (its audit entry goes through Prisma)", () => {
    expect(load({ database: 'bare' })).toThrow(/database 'bare' is for reads/);
  });

  it('refuses a public operation that writes', () => {
    expect(load({ auth: { public: true } })).toThrow(/a public operation must not write/);
  });

  it('refuses an event listed twice in emits', () => {
    expect(load({ emits: ['period.locked', 'period.locked'], sideEffects: ['update', 'emits_event'] })).toThrow(/emits lists an event twice/);
  });
});
