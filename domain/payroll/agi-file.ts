import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { type BinaryBody, bytesBody } from '../kernel/binary-body.ts';
import { DomainError } from '../kernel/errors.ts';
import { filingIdentity } from '../tax/filing-identity.ts';
import { readAgiRow, type StoredIndividual, storedIndividuals, toAgi } from './agi.ts';
import { PAYROLL_READ } from './employees.ts';
import { type Agi, AgiContact } from './schemas.ts';

/**
 * The employer declaration as the file Skatteverket's e-service "Lämna arbetsgivardeklaration"
 * takes: XML schema version 1.1 of "Teknisk beskrivning för arbetsgivardeklaration på
 * individnivå" (namespaces …/da/instans/schema/1.1 and …/da/komponent/schema/1.1), laid out like
 * Skatteverket's sample file "Exempel 1, vanliga löntagare": a sender (Avsandare), the employer
 * (Blankettgemensamt), one Blankett with the employer part (HU: FK201, FK006, FK487, FK497) and one
 * Blankett per individual part (IU: FK201, FK215, FK006, FK570, FK011, FK001, FK245, FK246).
 * Amounts are whole kronor. A correction carries the new employer part and only the individual
 * parts that changed: a new or changed one with the same specification number replaces the one
 * filed, a removed one is a Borttag (FK205). The full personal identity number appears here only.
 * docs/tax.md#the-agi-file; the schema the tests validate against: docs/tax/arbetsgivardeklaration-1.1.xsd.
 */

const INSTANS = 'http://xmls.skatteverket.se/se/skatteverket/da/instans/schema/1.1';
const KOMPONENT = 'http://xmls.skatteverket.se/se/skatteverket/da/komponent/schema/1.1';
export const AGI_CONTENT_TYPE = 'application/xml; charset=UTF-8';
const PROGRAM = 'Accounting Service';

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** Skatteverket's sample writes local time without a zone: Swedish time. */
const swedishTime = (iso: string): string =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Europe/Stockholm',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  })
    .format(new Date(iso))
    .replace(' ', 'T');

const field = (name: string, code: string, value: string | number): string => `<agd:${name} faltkod="${code}">${value}</agd:${name}>`;
const kronor = (ore: number): number => ore / 100;

export interface AgiFileInput {
  agi: Agi;
  /** The employer's twelve-digit id (16 + organisation number, or a sole trader's personnummer). */
  employer: string;
  /** Who Skatteverket may contact, as stored with the declaration. */
  contact: AgiContact;
  /** The stored individual parts, each with its full personal identity number (YYYYMMDDNNNN). */
  parts: readonly { individual: StoredIndividual; pin: string }[];
}

function contactLines(contact: AgiContact): string[] {
  return [
    `<agd:Namn>${escapeXml(contact.name)}</agd:Namn>`,
    `<agd:Telefon>${escapeXml(contact.phone)}</agd:Telefon>`,
    `<agd:Epostadress>${escapeXml(contact.email)}</agd:Epostadress>`,
  ];
}

export function agiXml({ agi, employer, contact, parts }: AgiFileInput): string {
  const period = agi.period.replace('-', '');
  const blankett = (content: string[]): string[] => [
    '  <agd:Blankett>',
    `    <agd:Arendeinformation><agd:Arendeagare>${employer}</agd:Arendeagare><agd:Period>${period}</agd:Period></agd:Arendeinformation>`,
    '    <agd:Blankettinnehall>',
    ...content.map((line) => `      ${line}`),
    '    </agd:Blankettinnehall>',
    '  </agd:Blankett>',
  ];
  const hu = blankett([
    '<agd:HU>',
    `  <agd:ArbetsgivareHUGROUP>${field('AgRegistreradId', '201', employer)}</agd:ArbetsgivareHUGROUP>`,
    `  ${field('RedovisningsPeriod', '006', period)}`,
    `  ${field('SummaArbAvgSlf', '487', kronor(agi.declared?.contributions ?? 0))}`,
    `  ${field('SummaSkatteavdr', '497', kronor(agi.declared?.tax ?? 0))}`,
    '</agd:HU>',
  ]);
  // A first version declares everyone; a correction only what changed.
  const ius = parts
    .filter(({ individual }) => agi.version === 1 || individual.change !== 'unchanged')
    .flatMap(({ individual, pin }) =>
      blankett([
        '<agd:IU>',
        `  <agd:ArbetsgivareIUGROUP>${field('AgRegistreradId', '201', employer)}</agd:ArbetsgivareIUGROUP>`,
        `  <agd:BetalningsmottagareIUGROUP><agd:BetalningsmottagareIDChoice>${field('BetalningsmottagarId', '215', pin)}</agd:BetalningsmottagareIDChoice></agd:BetalningsmottagareIUGROUP>`,
        `  ${field('RedovisningsPeriod', '006', period)}`,
        `  ${field('Specifikationsnummer', '570', individual.specification_number)}`,
        ...(individual.change === 'removed'
          ? [`  ${field('Borttag', '205', 1)}`]
          : [
              `  ${field('ArbetsplatsensGatuadress', '245', escapeXml(individual.workplace_address ?? ''))}`,
              `  ${field('ArbetsplatsensOrt', '246', escapeXml(individual.workplace_city ?? ''))}`,
              `  ${field('KontantErsattningUlagAG', '011', kronor(individual.declared_gross))}`,
              `  ${field('AvdrPrelSkatt', '001', kronor(individual.declared_tax))}`,
            ]),
        '</agd:IU>',
      ]),
    );
  return `${[
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
    `<Skatteverket omrade="Arbetsgivardeklaration" xmlns="${INSTANS}" xmlns:agd="${KOMPONENT}">`,
    '  <agd:Avsandare>',
    `    <agd:Programnamn>${PROGRAM}</agd:Programnamn>`,
    `    <agd:Organisationsnummer>${employer}</agd:Organisationsnummer>`,
    `    <agd:TekniskKontaktperson>${contactLines(contact).join('')}</agd:TekniskKontaktperson>`,
    `    <agd:Skapad>${swedishTime(agi.generated_at)}</agd:Skapad>`,
    '  </agd:Avsandare>',
    '  <agd:Blankettgemensamt>',
    `    <agd:Arbetsgivare><agd:AgRegistreradId>${employer}</agd:AgRegistreradId><agd:Kontaktperson>${contactLines(contact).join('')}</agd:Kontaktperson></agd:Arbetsgivare>`,
    '  </agd:Blankettgemensamt>',
    ...hu,
    ...ius,
    '</Skatteverket>',
  ].join('\n')}\n`;
}

/** The declaration's file, behind payroll:read like the declaration itself. */
export async function agiFile(ctx: OperationContext, companyId: string, agiId: string): Promise<BinaryBody> {
  requireScope(ctx, PAYROLL_READ);
  const row = await readAgiRow(ctx, companyId, agiId);
  const agi = toAgi(row);
  const identity = await filingIdentity(ctx, companyId);
  if (!row.contact || agi.declared === null) {
    throw new DomainError('FILING_INCOMPLETE', {
      message: 'This declaration was generated before the AGI file existed; generate the month again.',
      details: [{ path: 'body.contact', message: 'Generate the month again with a contact.' }],
    });
  }
  const parts = storedIndividuals(row).map((individual) => ({ individual, pin: ctx.services.secretBox.decrypt(individual.pin_encrypted).replace('-', '') }));
  return bytesBody(
    AGI_CONTENT_TYPE,
    `arbetsgivardeklaration-${identity.ten}-${agi.period.replace('-', '')}-v${agi.version}.xml`,
    new TextEncoder().encode(agiXml({ agi, employer: identity.twelve, contact: AgiContact.parse(row.contact), parts })),
  );
}
