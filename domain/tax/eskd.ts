import iconv from 'iconv-lite';
import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { type BinaryBody, bytesBody } from '../kernel/binary-body.ts';
import { filingIdentity } from './filing-identity.ts';
import type { VatReturn } from './schemas.ts';
import { readVatRow, toVatReturn } from './vat.ts';

/**
 * The VAT return as the file Skatteverket's e-service "Lämna momsdeklaration" takes ("Deklarera
 * via fil"): eSKDUpload version 6.0, XML in ISO 8859-1, one element per box in the order of
 * Skatteverket's DTD (public id "-//Skatteverket, Sweden//DTD Skatteverket eSKDUpload-DTD
 * Version 6.0//SV", eSKDUpload_6p0.dtd), whole kronor, empty boxes left out, MomsBetala (box 49)
 * always. The period is the return's last month (YYYYMM). A person signs and sends it in the
 * e-service; this service sends nothing. docs/tax.md#the-vat-file; the schema it is validated
 * against in the tests: docs/tax/eskd-upload-6.0.xsd.
 */

/** Box → element, in the DTD's sequence (which is not the form's: 50 comes before 35, 48 after 62). */
export const ESKD_ELEMENTS: readonly { box: string; tag: string }[] = [
  { box: '05', tag: 'ForsMomsEjAnnan' },
  { box: '06', tag: 'UttagMoms' },
  { box: '07', tag: 'UlagMargbesk' },
  { box: '08', tag: 'HyrinkomstFriv' },
  { box: '20', tag: 'InkopVaruAnnatEg' },
  { box: '21', tag: 'InkopTjanstAnnatEg' },
  { box: '22', tag: 'InkopTjanstUtomEg' },
  { box: '23', tag: 'InkopVaruSverige' },
  { box: '24', tag: 'InkopTjanstSverige' },
  { box: '50', tag: 'MomsUlagImport' },
  { box: '35', tag: 'ForsVaruAnnatEg' },
  { box: '36', tag: 'ForsVaruUtomEg' },
  { box: '37', tag: 'InkopVaruMellan3p' },
  { box: '38', tag: 'ForsVaruMellan3p' },
  { box: '39', tag: 'ForsTjSkskAnnatEg' },
  { box: '40', tag: 'ForsTjOvrUtomEg' },
  { box: '41', tag: 'ForsKopareSkskSverige' },
  { box: '42', tag: 'ForsOvrigt' },
  { box: '10', tag: 'MomsUtgHog' },
  { box: '11', tag: 'MomsUtgMedel' },
  { box: '12', tag: 'MomsUtgLag' },
  { box: '30', tag: 'MomsInkopUtgHog' },
  { box: '31', tag: 'MomsInkopUtgMedel' },
  { box: '32', tag: 'MomsInkopUtgLag' },
  { box: '60', tag: 'MomsImportUtgHog' },
  { box: '61', tag: 'MomsImportUtgMedel' },
  { box: '62', tag: 'MomsImportUtgLag' },
  { box: '48', tag: 'MomsIngAvdr' },
  { box: '49', tag: 'MomsBetala' },
];

const DOCTYPE =
  '<!DOCTYPE eSKDUpload PUBLIC "-//Skatteverket, Sweden//DTD Skatteverket eSKDUpload-DTD Version 6.0//SV" "https://www1.skatteverket.se/demoeskd/eSKDUpload_6p0.dtd">';
export const ESKD_CONTENT_TYPE = 'application/xml; charset=ISO-8859-1';

/** The file's text (before encoding): `dashed` is the organisation number as NNNNNN-NNNN. */
export function eskdXml(dashed: string, vatReturn: Pick<VatReturn, 'period_end' | 'boxes'>): string {
  const amounts = new Map(vatReturn.boxes.map((box) => [box.box, box.amount / 100]));
  const lines = [
    '<?xml version="1.0" encoding="ISO-8859-1"?>',
    DOCTYPE,
    '<eSKDUpload Version="6.0">',
    `  <OrgNr>${dashed}</OrgNr>`,
    '  <Moms>',
    `    <Period>${vatReturn.period_end.slice(0, 4)}${vatReturn.period_end.slice(5, 7)}</Period>`,
    ...ESKD_ELEMENTS.filter(({ box }) => box === '49' || (amounts.get(box) ?? 0) !== 0).map(({ box, tag }) => `    <${tag}>${amounts.get(box) ?? 0}</${tag}>`),
    '  </Moms>',
    '</eSKDUpload>',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export async function vatReturnFile(ctx: OperationContext, companyId: string, id: string): Promise<BinaryBody> {
  requireScope(ctx, 'compliance:read');
  const vatReturn = toVatReturn(await readVatRow(ctx, companyId, id));
  const identity = await filingIdentity(ctx, companyId);
  const period = `${vatReturn.period_end.slice(0, 4)}${vatReturn.period_end.slice(5, 7)}`;
  return bytesBody(
    ESKD_CONTENT_TYPE,
    `momsdeklaration-${identity.ten}-${period}-v${vatReturn.version}.xml`,
    iconv.encode(eskdXml(identity.dashed, vatReturn), 'latin1'),
  );
}
