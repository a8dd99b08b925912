import { parseArgs } from 'node:util';
import { createServices } from '../domain/bootstrap.ts';
import type { Db } from '../domain/db/client.ts';
import { createApiKey, revokeApiKey } from '../domain/apikeys/keys.ts';
import { createCompany, createMembership, createUser } from '../domain/users/admin.ts';
import { listApiKeys, listCompanies, listMemberships, listUsers } from '../domain/users/directory.ts';
import { SCOPES } from '../domain/kernel/scopes.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';

/**
 * Administration against the database (not the HTTP API): create and list users, companies,
 * memberships and API keys, revoke keys. Each command declares its flags once; a missing
 * required flag is named before anything touches the database.
 */

type Values = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  required?: readonly string[];
  run(db: Db, values: Values): Promise<unknown>;
}

const text = (values: Values, name: string): string => String(values[name] ?? '');
const optional = (values: Values, name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);

const COMMANDS: Record<string, Command> = {
  'user create': {
    usage: 'user create --email <email> --name <name>',
    required: ['email', 'name'],
    run: (db, v) => createUser(db, { email: text(v, 'email'), name: text(v, 'name') }),
  },
  'user list': { usage: 'user list', run: (db) => listUsers(db) },
  'company create': {
    usage: 'company create --name <name> --org-number <number> [--entity-type <type>] [--live]',
    required: ['name', 'org-number'],
    run: (db, v) =>
      createCompany(db, {
        name: text(v, 'name'),
        orgNumber: text(v, 'org-number'),
        livemode: v.live === true,
        ...(optional(v, 'entity-type') && { entityType: optional(v, 'entity-type') }),
      }),
  },
  'company list': { usage: 'company list', run: (db) => listCompanies(db) },
  'membership create': {
    usage: 'membership create --user <userId> --company <companyId> [--role owner|admin|member]',
    required: ['user', 'company'],
    run: (db, v) => createMembership(db, { userId: text(v, 'user'), companyId: text(v, 'company'), role: (optional(v, 'role') ?? 'owner') as 'owner' }),
  },
  'membership list': {
    usage: 'membership list [--user <userId>] [--company <companyId>]',
    run: (db, v) =>
      listMemberships(db, {
        ...(optional(v, 'user') && { userId: optional(v, 'user') }),
        ...(optional(v, 'company') && { companyId: optional(v, 'company') }),
      }),
  },
  'key create': {
    usage: 'key create --user <userId> --name <name> [--mode test|live] [--scopes a,b|all] [--company <companyId>] [--rate-limit <n>]',
    required: ['user', 'name'],
    run: async (db, v) => {
      const scopes = optional(v, 'scopes') ?? 'all';
      const created = await createApiKey(db, {
        userId: text(v, 'user'),
        name: text(v, 'name'),
        mode: (optional(v, 'mode') ?? 'test') as 'test',
        scopes: (scopes === 'all' ? [...SCOPES] : scopes.split(',').map((s) => s.trim())) as (typeof SCOPES)[number][],
        companyId: optional(v, 'company') ?? null,
        rateLimitPerMinute: optional(v, 'rate-limit') ? Number(optional(v, 'rate-limit')) : null,
      });
      return { id: created.id, prefix: created.prefix, key: created.key, note: 'The key is shown only now; only its hash is stored.' };
    },
  },
  'key list': {
    usage: 'key list [--user <userId>]   (prefix, mode, scopes, last use; never the key)',
    run: (db, v) => listApiKeys(db, optional(v, 'user') ? { userId: optional(v, 'user') } : {}),
  },
  'key revoke': {
    usage: 'key revoke --id <apiKeyId>',
    required: ['id'],
    run: async (db, v) => ({ revoked: await revokeApiKey(db, text(v, 'id'), new Date()) }),
  },
};

const USAGE = `Usage: npm run admin -- <command> [options]
(Administration on the database. The API client is \`npx accounting\`.)
${Object.values(COMMANDS)
  .map((command) => `  ${command.usage}`)
  .join('\n')}
Scopes: ${SCOPES.join(', ')}
Lists print JSON (pipe them to jq); creates print the created record.`;

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
    mode: { type: 'string' },
    scopes: { type: 'string' },
    'rate-limit': { type: 'string' },
    id: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const name = positionals.join(' ');
if (values.help || name === '') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const command = COMMANDS[name];
if (!command) {
  process.stderr.write(`Unknown command "${name}".\n${USAGE}\n`);
  process.exit(2);
}
// Named before anything opens the database, so the operator fixes the line, not a zod message.
const missing = (command.required ?? []).filter((flag) => values[flag as keyof typeof values] === undefined || values[flag as keyof typeof values] === '');
if (missing.length > 0) {
  process.stderr.write(
    `Missing required flag${missing.length > 1 ? 's' : ''} for "${name}": ${missing.map((flag) => `--${flag}`).join(', ')}\nUsage: npm run admin -- ${command.usage}\n`,
  );
  process.exit(2);
}

const services = await startupStep(() => createServices(configFromEnvironment(), { migrate: true, processName: 'npm run admin' }));
try {
  process.stdout.write(`${JSON.stringify(await command.run(services.database.prisma, values), null, 2)}\n`);
} catch (error) {
  // zod errors and constraint violations are the operator's input problems: one readable line.
  const issues = (error as { issues?: { path: unknown[]; message: string }[] }).issues;
  const message = issues ? issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (error as Error).message;
  process.stderr.write(`Error: ${message}\n`);
  process.exitCode = 1;
} finally {
  await services.database.close();
}
