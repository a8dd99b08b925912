import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { books } from '../../helpers/ledger.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { AGI_XSD, download, HAS_XMLLINT, validateXml } from '../../helpers/xml.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { sqlState } from '../../../domain/db/errors.ts';

const NOW = new Date('2026-07-06T08:15:00.000Z');
// Fictitious numbers with valid check digits.
const ANNA = '19811218-9876';
const YOUNG = '20070312-2382';
const SENIOR = '19590704-1239';
const CONTACT = { name: 'Karin Ek', phone: '040-123 45 67', email: 'lon@exempel.se' };
const WORKPLACE = { workplace_address: 'Storgatan 1', workplace_city: 'Malmö' };

/**
 * June 2026, paid the 25th. Worked out by hand:
 *   Anna (born 1981)   42 000 kr, tax 30 % = 12 600, contributions 31,42 % = 13 196,40
 *   Young (born 2007)  20 000 kr, tax 10 % =  2 000, contributions 20,81 % (SFS 2026:100) = 4 162,00
 *   Senior (born 1959) 30 000 kr, tax 25 % =  7 500, contributions 31,42 % (66 < riktåldern 67) = 9 426,00
 * FK497 = 12 600 + 2 000 + 7 500 = 22 100. FK487 per rate, öre dropped (Skatteverket 2017-06-08):
 *   31,42 % on 42 000 + 30 000 = 72 000 → 22 622,40 → 22 622; 20,81 % on 20 000 → 4 162; 26 784.
 */
const kr = (kronor: number) => Math.round(kronor * 100);

describe.each(DB_TARGETS)("the AGI as Skatteverket's file: individual parts, corrections, identity numbers (%s)", (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let noPayroll: string;
  const ids = { anna: '', young: '', senior: '' };
  let first: Record<string, any>;
  let firstFile: Uint8Array;
  const send = (method: string, path: string, body?: unknown, key = tenant.key) =>
    call(app, method, `/api/v1/companies/${tenant.companyId}${path}`, { key, ...(body !== undefined && { body }) });
  const file = (id: string, key = tenant.key) => download(app, `/api/v1/companies/${tenant.companyId}/agis/${id}`, key, 'application/xml');
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    noPayroll = (await makeKey(t.services.database.prisma, tenant.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') })).key;
    expect((await books(app, tenant.key, tenant.companyId).createYear('2026-01-01')).status).toBe(201);
    for (const [key, name, pin, salary, tax] of [
      ['anna', 'Anna Lindqvist', ANNA, 42_000, 30],
      ['young', 'Ylva Ung', YOUNG, 20_000, 10],
      ['senior', 'Sture Äldre', SENIOR, 30_000, 25],
    ] as const) {
      const created = await send('POST', '/employees', {
        name,
        personal_identity_number: pin,
        employment_start: '2026-01-01',
        monthly_salary: kr(salary),
        tax_rate: tax,
        ...WORKPLACE,
      });
      expect(created.status, created.text).toBe(201);
      ids[key] = created.body.data.id;
    }
    const run = (await send('POST', '/salary-runs', { period: '2026-06' })).body.data;
    expect((await send('POST', `/salary-runs/${run.id}/approve`)).status).toBe(200);
    expect((await send('POST', `/salary-runs/${run.id}/book`)).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('a personal identity number is registered once per company: 409 naming the holder, never the number', async () => {
    const again = await send('POST', '/employees', {
      name: 'Anna igen',
      personal_identity_number: '198112189876',
      employment_start: '2026-02-01',
      monthly_salary: 100,
      tax_rate: 30,
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'EMPLOYEE_EXISTS', details: [{ path: 'body.personal_identity_number' }] });
    expect(again.body.error.message).toContain(ids.anna);
    expect(again.text).not.toMatch(/9876|811218/);
    const renamed = await send('PATCH', `/employees/${ids.young}`, { personal_identity_number: SENIOR });
    expect(renamed.status).toBe(409);
    expect(renamed.text).not.toContain('0704');
    // The database itself refuses a second row with the same digest.
    const [row] = await t.services.database.prisma.$queryRawUnsafe<{ pin_digest: string }[]>(`SELECT pin_digest FROM employees WHERE id = '${ids.anna}'`);
    const duplicate = await t.services.database.prisma
      .$executeRawUnsafe(
        `INSERT INTO employees (company_id, name, pin_encrypted, pin_masked, pin_digest, birth_date, employment_start, monthly_salary, tax_rate_hundredths)
         VALUES ('${tenant.companyId}', 'X', 'v1:x', '19811218-****', '${row!.pin_digest}', '1981-12-18', '2026-01-01', 0, 0)`,
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(sqlState(duplicate)).toBe('23505');
    // Every other company may register the same person.
    const other = await makeTenant(t.services.database.prisma);
    const elsewhere = await call(app, 'POST', `/api/v1/companies/${other.companyId}/employees`, {
      key: other.key,
      body: { name: 'Anna', personal_identity_number: ANNA, employment_start: '2026-01-01', monthly_salary: 100, tax_rate: 30 },
    });
    expect(elsewhere.status, elsewhere.text).toBe(201);
  });

  it('needs a contact the first time, naming what is missing', async () => {
    const refused = await send('POST', '/agis', { period: '2026-06' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'FILING_INCOMPLETE', details: [{ path: 'body.contact' }] });
  });

  it('declares each payee with FK570, FK011, FK001 and the workplace, and the employer part as worked out by hand', async () => {
    const generated = await send('POST', '/agis', { period: '2026-06', contact: CONTACT });
    expect(generated.status, generated.text).toBe(201);
    first = generated.body.data;
    expect(first).toMatchObject({ version: 1, corrects_id: null, declared: { tax: kr(22_100), contributions: kr(26_784) } });
    const part = (id: string) => first.individuals.find((i: { employee_id: string }) => i.employee_id === id);
    expect(part(ids.anna)).toMatchObject({
      specification_number: 1,
      gross: kr(42_000),
      tax: kr(12_600),
      contributions: kr(13_196.4),
      change: 'new',
    });
    expect(part(ids.young)).toMatchObject({
      specification_number: 2,
      gross: kr(20_000),
      tax: kr(2_000),
      contributions: kr(4_162),
      change: 'new',
    });
    expect(part(ids.senior)).toMatchObject({ specification_number: 3, gross: kr(30_000), tax: kr(7_500), contributions: kr(9_426) });
    expect(JSON.stringify(first)).not.toMatch(/9876|2382|1239/);
  });

  it('serves the file with the full numbers behind payroll:read, valid against the schema', async () => {
    const response = await file(first.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/xml; charset=UTF-8');
    firstFile = response.bytes;
    const xml = text(firstFile);
    expect(xml).toContain('<Skatteverket omrade="Arbetsgivardeklaration" xmlns="http://xmls.skatteverket.se/se/skatteverket/da/instans/schema/1.1"');
    expect(xml).toContain('<agd:AgRegistreradId faltkod="201">165560000000</agd:AgRegistreradId>');
    expect(xml).toContain('<agd:SummaArbAvgSlf faltkod="487">26784</agd:SummaArbAvgSlf>');
    expect(xml).toContain('<agd:SummaSkatteavdr faltkod="497">22100</agd:SummaSkatteavdr>');
    expect(xml).toContain('<agd:Skapad>2026-07-06T10:15:00</agd:Skapad>');
    expect((xml.match(/<agd:IU>/g) ?? []).length).toBe(3);
    for (const [pin, spec, gross, tax] of [
      ['198112189876', 1, 42000, 12600],
      ['200703122382', 2, 20000, 2000],
      ['195907041239', 3, 30000, 7500],
    ] as const) {
      const iu = xml.slice(xml.indexOf(`<agd:BetalningsmottagarId faltkod="215">${pin}<`)).split('</agd:IU>')[0]!;
      expect(iu).toContain(`<agd:Specifikationsnummer faltkod="570">${spec}</agd:Specifikationsnummer>`);
      expect(iu).toContain(`<agd:KontantErsattningUlagAG faltkod="011">${gross}</agd:KontantErsattningUlagAG>`);
      expect(iu).toContain(`<agd:AvdrPrelSkatt faltkod="001">${tax}</agd:AvdrPrelSkatt>`);
      expect(iu).toContain('<agd:ArbetsplatsensGatuadress faltkod="245">Storgatan 1</agd:ArbetsplatsensGatuadress>');
      expect(iu).toContain('<agd:ArbetsplatsensOrt faltkod="246">Malmö</agd:ArbetsplatsensOrt>');
    }
    if (HAS_XMLLINT) {
      const verdict = validateXml(AGI_XSD, firstFile);
      expect(verdict.valid, verdict.output).toBe(true);
      // The validator refuses a wrong field code and a masked number.
      expect(validateXml(AGI_XSD, new TextEncoder().encode(xml.replace('faltkod="011"', 'faltkod="012"'))).valid).toBe(false);
      expect(validateXml(AGI_XSD, new TextEncoder().encode(xml.replace('198112189876', '19811218****'))).valid).toBe(false);
    }
    const refused = await file(first.id, noPayroll);
    expect(refused.status).toBe(403);
    expect(text(refused.bytes)).toContain('payroll:read');
  });

  it('a correction round trip: submit, correct one person, and the correction carries the employer part and that person only', async () => {
    expect((await send('POST', `/agis/${first.id}/submit`)).body.data.status).toBe('submitted');
    expect((await send('PATCH', `/employees/${ids.young}`, { workplace_city: 'Lund' })).status).toBe(200);
    const correction = await send('POST', '/agis', { period: '2026-06' });
    expect(correction.status, correction.text).toBe(201);
    expect(correction.body.data).toMatchObject({ version: 2, corrects_id: first.id, declared: first.declared });
    // The contact given the first time is kept and printed again.
    const changes = Object.fromEntries(correction.body.data.individuals.map((i: { employee_id: string; change: string }) => [i.employee_id, i.change]));
    expect(changes).toEqual({ [ids.anna]: 'unchanged', [ids.young]: 'changed', [ids.senior]: 'unchanged' });
    const xml = text((await file(correction.body.data.id)).bytes);
    expect((xml.match(/<agd:HU>/g) ?? []).length).toBe(1);
    expect((xml.match(/<agd:IU>/g) ?? []).length).toBe(1);
    expect(xml).toContain('<agd:BetalningsmottagarId faltkod="215">200703122382</agd:BetalningsmottagarId>');
    expect(xml).toContain('<agd:Specifikationsnummer faltkod="570">2</agd:Specifikationsnummer>');
    expect(xml).toContain('<agd:ArbetsplatsensOrt faltkod="246">Lund</agd:ArbetsplatsensOrt>');
    expect(xml).toContain(`<agd:Namn>${CONTACT.name}</agd:Namn>`);
    if (HAS_XMLLINT) expect(validateXml(AGI_XSD, new TextEncoder().encode(xml)).valid).toBe(true);
    expect((await send('POST', `/agis/${correction.body.data.id}/submit`)).status).toBe(200);
    // The first version and its file are frozen.
    expect((await file(first.id)).bytes).toEqual(firstFile);
    const frozen = await t.services.database.prisma.$executeRawUnsafe(`UPDATE agi_declarations SET declared_tax = 0 WHERE id = '${first.id}'`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(sqlState(frozen)).toBe('23514');
    const events = await t.services.database.prisma.event.findMany({ where: { companyId: tenant.companyId, type: { startsWith: 'agi.' } } });
    expect(events.map((e) => e.type).sort()).toEqual(['agi.generated', 'agi.generated', 'agi.submitted', 'agi.submitted']);
  });

  it('a corrected identity number withdraws the part filed under the old one (Borttag) and files it anew', async () => {
    const rightNumber = '20030915-4565';
    expect((await send('PATCH', `/employees/${ids.young}`, { personal_identity_number: rightNumber })).status).toBe(200);
    const correction = (await send('POST', '/agis', { period: '2026-06' })).body.data;
    expect(correction.version).toBe(3);
    const young = correction.individuals.filter((i: { employee_id: string }) => i.employee_id === ids.young);
    expect(young.map((i: { change: string; personal_identity_number: string }) => [i.change, i.personal_identity_number])).toEqual([
      ['new', '20030915-****'],
      ['removed', '20070312-****'],
    ]);
    const xml = text((await file(correction.id)).bytes);
    const removal = xml.slice(xml.indexOf('200703122382')).split('</agd:IU>')[0]!;
    expect(removal).toContain('<agd:Borttag faltkod="205">1</agd:Borttag>');
    expect(removal).not.toContain('KontantErsattningUlagAG');
    expect(xml).toContain('<agd:BetalningsmottagarId faltkod="215">200309154565</agd:BetalningsmottagarId>');
    if (HAS_XMLLINT) expect(validateXml(AGI_XSD, new TextEncoder().encode(xml)).valid).toBe(true);
  });

  it('over MCP: the same declaration, numbers masked', async () => {
    const mcp: Client = await connectInProcess(app, { key: tenant.key });
    const result = await mcp.callTool({ name: 'tax.get_agi', arguments: { company_id: tenant.companyId, agi_id: first.id } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: first.id, declared: first.declared });
    expect(JSON.stringify(result)).not.toMatch(/9876|2382|1239/);
    await mcp.close();
  });

  it('another company reaches none of it, file included', async () => {
    const other = await makeTenant(t.services.database.prisma);
    expect((await download(app, `/api/v1/companies/${tenant.companyId}/agis/${first.id}`, other.key, 'application/xml')).status).toBe(404);
    expect((await download(app, `/api/v1/companies/${other.companyId}/agis/${first.id}`, other.key, 'application/xml')).status).toBe(404);
  });
});
