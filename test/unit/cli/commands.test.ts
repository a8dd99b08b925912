import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '../../../registry/index.ts';
import { defineOperation, READ_ONLY, type Operation } from '../../../registry/define-operation.ts';
import { CLI_NAME, cliCommandLine, cliFlagName, cliSubcommand, hasCliSurface } from '../../../registry/cli-command.ts';
import { capabilityRecord } from '../../../registry/capabilities.ts';
import { cliExample, curlExample } from '../../../discovery/command-examples.ts';
import { requestBodyExample } from '../../../discovery/examples.ts';
import { buildCommands } from '../../../cli/client/spec.ts';
import { parseFlags } from '../../../cli/client/args.ts';
import { main, parseCommand, type MainIo } from '../../../cli/client/main.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import { buildRequest } from '../../../cli/client/request.ts';
import { CliError } from '../../../cli/client/errors.ts';
import { chooseMediaType } from '../../../pipeline/negotiate.ts';
import { offeredMediaTypes } from '../../../registry/media-types.ts';

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> };

/** Splits a documented command line into argv words the way a POSIX shell does (quotes only). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  let current = '';
  let last = 0;
  for (const match of line.matchAll(pattern)) {
    const glued = match.index === last && current !== '';
    const text = match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!;
    if (glued) current += text;
    else {
      if (current) words.push(current);
      current = text;
    }
    last = match.index + match[0].length;
  }
  if (current) words.push(current);
  return words;
}

const table = buildCommands(registry.operations);
const settings = { apiBase: 'http://api.test/api/v1', apiKey: 'sk_test_x', defaultCompanyId: undefined };
const noStdin = { readStdin: async () => '' };

describe('CLI commands generated from the registry', () => {
  it("is the package's bin", () => {
    expect(packageJson.bin).toEqual({ [CLI_NAME]: 'bin/accounting.mjs' });
  });

  it('has one command per cli operation with one flag per path, query and body field', () => {
    const cliOps = registry.operations.filter(hasCliSurface);
    expect(table.commands.map((spec) => spec.op.id)).toEqual(cliOps.map((op) => op.id));
    for (const spec of table.commands) {
      const fields = (['params', 'query', 'body'] as const).flatMap((part) => {
        const schema = spec.op.input[part];
        // Through JSON Schema, so wrapped objects (an optional body with a default) count too.
        return schema ? Object.keys((z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: object }).properties ?? {}) : [];
      });
      // An operation that takes a file also has a flag for its file part.
      if (spec.op.input.file) fields.push(spec.op.input.file.field);
      expect(spec.flags.map((flag) => flag.field).sort(), spec.op.id).toEqual(fields.sort());
    }
    expect(cliCommandLine(registry.byId('listWebhookDeliveries')!)).toBe('accounting webhooks list-deliveries');
    expect(cliSubcommand(registry.byId('listEventTypes')!)).toBe('list-types');
    expect(cliFlagName('companyId', 'path')).toBe('company');
    expect(cliFlagName('fiscalYearId', 'path')).toBe('fiscal-year');
    expect(cliFlagName('id', 'path')).toBe('id');
    expect(cliFlagName('event_type', 'body')).toBe('event-type');
  });

  it("lists each operation's real command in its capability record", () => {
    for (const op of registry.operations) {
      expect(capabilityRecord(op).cliCommandRefs).toEqual(hasCliSurface(op) ? [cliCommandLine(op)] : []);
    }
  });

  it('derives kinds, requiredness, enums and defaults from the schemas', () => {
    const create = table.find('webhooks', 'create')!;
    const flag = (name: string) => create.flags.find((f) => f.flag === name)!;
    expect(flag('company')).toMatchObject({ location: 'path', required: true, kind: 'string', format: 'uuid' });
    expect(flag('event-type')).toMatchObject({ location: 'body', required: true, kind: 'string' });
    expect(flag('event-type').enumValues).toContain('journal_entry.committed');
    expect(flag('description')).toMatchObject({ required: false, defaultValue: '' });
    const list = table.find('events', 'list')!;
    expect(list.paginated).toBe(true);
    expect(list.flags.find((f) => f.flag === 'limit')).toMatchObject({ location: 'query', kind: 'integer', maximum: 200, defaultValue: 50 });
    expect(table.find('webhooks', 'update')!.flags.find((f) => f.flag === 'active')).toMatchObject({ kind: 'boolean' });
  });

  it.each(table.commands.map((spec) => [spec.op.id, spec] as const))(
    '%s: the documented CLI line builds the same request as the documented curl',
    async (_id, spec) => {
      const line = cliExample(spec.op)!;
      expect(line.startsWith(cliCommandLine(spec.op))).toBe(true);
      let argv = shellWords(line).slice(1);
      const file = spec.op.input.file;
      if (file) {
        // The documented file name, made real: the CLI reads the file it names.
        const path = join(mkdtempSync(join(tmpdir(), 'acct-cli-file-')), file.exampleName);
        writeFileSync(path, 'example bytes');
        expect(argv).toContain(file.exampleName);
        argv = argv.map((word) => (word === file.exampleName ? path : word));
        expect(curlExample(spec.op, 'http://api.test/api/v1')).toContain(`-F ${file.field}=@${file.exampleName}`);
      }
      const command = parseCommand(spec, argv, {});
      const built = await buildRequest(spec, command.input, settings, noStdin);
      if (file) expect((built.body as FormData).get(file.field)).toBeInstanceOf(Blob);

      const curl = curlExample(spec.op, 'http://api.test/api/v1');
      const [, url] = curl.match(/"(http[^"]+)"/)!;
      const expected = new URL(url!);
      const actual = new URL(built.url);
      expect(actual.pathname).toBe(expected.pathname);
      expect(Object.fromEntries(actual.searchParams)).toEqual(Object.fromEntries(expected.searchParams));
      expect(built.method).toBe(spec.op.method);
      // The server's own negotiation accepts what the CLI asks for, and answers in the default.
      const offers = offeredMediaTypes(spec.op);
      if (offers.length > 0) expect(chooseMediaType(spec.op, built.headers.accept)).toBe(offers[0]);
      expect(built.json).toEqual(file ? undefined : requestBodyExample(spec.op));
      if (spec.op.idempotencyKey === 'required') expect(built.headers['idempotency-key']).toBe(built.generatedIdempotencyKey);
      else expect(built.headers['idempotency-key']).toBeUndefined();
    },
  );

  it('--lang sends Accept-Language where an answer is written in several languages, and is unknown elsewhere', async () => {
    const spec = table.commands.find((candidate) => candidate.op.id === 'getTrialBalance')!;
    const argv = ['reports', cliSubcommand(spec.op), '--company', 'c1', '--accept', 'application/pdf', '--lang', 'en-GB'];
    const built = await buildRequest(spec, parseCommand(spec, argv, {}).input, settings, noStdin);
    expect(built.headers['accept-language']).toBe('en-GB');
    const plain = await buildRequest(spec, parseCommand(spec, argv.slice(0, -2), {}).input, settings, noStdin);
    expect(plain.headers['accept-language']).toBeUndefined();
    const other = table.commands.find((candidate) => candidate.op.id === 'listWebhookDeliveries')!;
    expect(() => parseCommand(other, ['webhooks', cliSubcommand(other.op), '--lang', 'en'], {})).toThrow(/--lang/);
  });

  it("converts flag text to the field's JSON type, and leaves the rest for the API to judge", async () => {
    const op = synthetic({
      body: z.object({
        count: z.number().int(),
        ratio: z.number(),
        active: z.boolean(),
        tags: z.array(z.string()),
        lines: z.array(z.object({ account: z.string() })),
        note: z.string().nullable(),
      }),
    });
    const spec = buildCommands([op]).commands[0]!;
    const build = async (argv: string[]) => (await buildRequest(spec, parseCommand(spec, ['documents', 'thing', ...argv], {}).input, settings, noStdin)).json;
    expect(
      await build(['--count', '3', '--ratio', '0.25', '--no-active', '--tags', 'a,b', '--tags', 'c', '--lines', '[{"account":"1930"}]', '--note', 'null']),
    ).toEqual({ count: 3, ratio: 0.25, active: false, tags: ['a', 'b', 'c'], lines: [{ account: '1930' }], note: null });
    // Not a number: sent as typed, so the API's validation answers with its own message and hint.
    expect(await build(['--count', 'three'])).toEqual({ count: 'three' });
    expect(await build(['--data', '{"count":1,"note":"x"}', '--note', 'y'])).toEqual({ count: 1, note: 'y' });
    await expect(build(['--lines', '[oops'])).rejects.toThrow(/--lines takes a JSON value/);
    await expect(build(['--data', '{oops'])).rejects.toThrow(/--data is not valid JSON/);
    await expect(build(['--count', '1', '--count', '2'])).rejects.toThrow(/--count was given twice/);
    await expect(build(['--colour', 'red'])).rejects.toBeInstanceOf(CliError);
  });

  it('refuses clashing commands or flags loudly at start', () => {
    expect(() => buildCommands([synthetic({ body: z.object({ output: z.string() }) })])).toThrow(/would shadow the global --output/);
    expect(() => buildCommands([synthetic({ body: z.object({ event_type: z.string(), 'event-type': z.string() }) })])).toThrow(/both become --event-type/);
    expect(() => buildCommands([synthetic({}), synthetic({})])).toThrow(/command "documents thing" is already/);
  });

  it('parses flags strictly', () => {
    const definitions = new Map([
      ['name', { boolean: false }],
      ['active', { boolean: true }],
      ['tags', { boolean: false, repeatable: true }],
    ]);
    const parsed = parseFlags(['group', 'cmd', '--name=a b', '--no-active', '--tags', 'x', '--tags=y'], definitions);
    expect(parsed.positionals).toEqual(['group', 'cmd']);
    expect(Object.fromEntries(parsed.values)).toEqual({ name: ['a b'], active: ['false'], tags: ['x', 'y'] });
    expect(() => parseFlags(['--name'], definitions)).toThrow(/--name needs a value/);
    expect(() => parseFlags(['--active=maybe'], definitions)).toThrow(/true or false/);
    const misspelt = (() => {
      try {
        parseFlags(['--nam', 'x'], definitions);
      } catch (error) {
        return error;
      }
      return 'accepted';
    })();
    expect(misspelt).toBeInstanceOf(CliError);
    expect((misspelt as CliError).hint).toContain('--name');
    expect((misspelt as CliError).exitCode).toBe(2);
  });
});

/** A throwaway operation for the generator's edge cases (never registered). */
function synthetic(input: { body?: z.ZodType }): Operation {
  return defineOperation({
    id: 'thing',
    group: 'documents',
    method: 'POST',
    path: '/things',
    summary: 'Thing',
    description: 'A test operation.',
    auth: { scope: 'documents:write' },
    ...READ_ONLY,
    sideEffects: ['create'],
    input: input.body ? { body: input.body } : {},
    output: null,
    status: 204,
    examples: {},
    surfaces: ['cli'],
    handler: async () => ({ data: null }),
  });
}

describe('accounting --version', () => {
  it('prints the package version and the API version, exit 0, before anything else runs', async () => {
    let out = '';
    const sink = {
      write: (chunk: string) => {
        out += chunk;
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const io = { stdout: sink, stderr: sink, env: {}, readStdin: async () => '' } as unknown as MainIo;
    const version = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(await main(['--version'], io, registry.operations)).toBe(0);
    expect(out).toBe(`${CLI_NAME} ${version} (api ${API_VERSION})\n`);
  });
});
