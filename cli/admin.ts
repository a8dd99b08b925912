import { parseArgs } from 'node:util';
import { createServices } from '../domain/bootstrap.ts';
import { createApiKey, revokeApiKey } from '../domain/apikeys/keys.ts';
import { createCompany, createMembership, createUser } from '../domain/users/admin.ts';
import { SCOPES } from '../domain/kernel/scopes.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';

const USAGE = `Usage: npm run admin -- <command> [options]
(Administration on the database. The API client is \`npx accounting\`.)
  user create --email <email> --name <name>
  company create --name <name> --org-number <number> [--entity-type <type>] [--live]
  membership create --user <userId> --company <companyId> [--role owner|admin|member]
  key create --user <userId> --name <name> [--mode test|live] [--scopes a,b|all] [--company <companyId>] [--rate-limit <n>]
  key revoke --id <apiKeyId>
Scopes: ${SCOPES.join(', ')}`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    'org-number': { type: 'string' },
    'entity-type': { type: 'string' },
    live: { type: 'boolean', default: false },
    user: { type: 'string' },
    company: { type: 'string' },
    role: { type: 'string' },
    mode: { type: 'string', default: 'test' },
    scopes: { type: 'string', default: 'all' },
    'rate-limit': { type: 'string' },
    id: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const command = positionals.join(' ');
if (values.help || command === '') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const services = await startupStep(() => createServices(configFromEnvironment(), { migrate: true, processName: 'npm run cli' }));
const db = services.database.prisma;
const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

try {
  switch (command) {
    case 'user create':
      print(await createUser(db, { email: values.email ?? '', name: values.name ?? '' }));
      break;
    case 'company create':
      print(
        await createCompany(db, {
          name: values.name ?? '',
          orgNumber: values['org-number'] ?? '',
          livemode: values.live,
          ...(values['entity-type'] && { entityType: values['entity-type'] }),
        }),
      );
      break;
    case 'membership create':
      print(await createMembership(db, { userId: values.user ?? '', companyId: values.company ?? '', role: (values.role ?? 'owner') as 'owner' }));
      break;
    case 'key create': {
      const scopes = values.scopes === 'all' ? [...SCOPES] : (values.scopes ?? '').split(',').map((s) => s.trim());
      const created = await createApiKey(db, {
        userId: values.user ?? '',
        name: values.name ?? 'cli key',
        mode: values.mode as 'test',
        scopes: scopes as (typeof SCOPES)[number][],
        companyId: values.company ?? null,
        rateLimitPerMinute: values['rate-limit'] ? Number(values['rate-limit']) : null,
      });
      print({ id: created.id, prefix: created.prefix, key: created.key, note: 'The key is shown only now; only its hash is stored.' });
      break;
    }
    case 'key revoke':
      print({ revoked: await revokeApiKey(db, values.id ?? '', new Date()) });
      break;
    default:
      process.stderr.write(`Unknown command "${command}".\n${USAGE}\n`);
      process.exitCode = 2;
  }
} catch (error) {
  // zod errors and constraint violations are the operator's input problems: one readable line.
  const issues = (error as { issues?: { path: unknown[]; message: string }[] }).issues;
  const message = issues ? issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (error as Error).message;
  process.stderr.write(`Error: ${message}\n`);
  process.exitCode = 1;
} finally {
  await services.database.close();
}
