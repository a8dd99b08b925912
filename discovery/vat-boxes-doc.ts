import { VAT_CODES } from '../domain/ledger/schemas.ts';
import { ESKD_ELEMENTS } from '../domain/tax/eskd.ts';
import { DORMANT_VAT_ACCOUNTS, ROUNDING_ACCOUNT, VAT_BOXES, VAT_SETTLEMENT_ACCOUNT, type VatBoxSource } from '../domain/tax/vat-boxes.ts';

/**
 * docs/reference/vat-boxes.md: the VAT return's boxes as the code computes them, printed from the
 * same declaration (domain/tax/vat-boxes.ts) and the file's element list (domain/tax/eskd.ts).
 */
export const VAT_BOXES_DOC = 'vat-boxes.md';

const sourceText = (source: VatBoxSource): string =>
  'accounts' in source
    ? `accounts ${source.accounts.join(', ')}`
    : 'vatCodes' in source
      ? `VAT code ${source.vatCodes.map((code) => `\`${code}\``).join(', ')}${source.accountTypes ? ` on ${source.accountTypes.join(', ')} accounts` : ''}`
      : `${source.add.join(' + ')} − ${source.subtract.join(' − ')} (declared amounts)`;

export function renderVatBoxes(): string[] {
  const tag = new Map(ESKD_ELEMENTS.map((element) => [element.box, element.tag]));
  const boxesOf = (code: string) =>
    VAT_BOXES.filter((box) => 'vatCodes' in box.source && (box.source.vatCodes as readonly string[]).includes(code)).map((box) => box.box);
  return [
    '# VAT return boxes',
    "How each box of Skatteverket's VAT return (momsdeklaration) is computed from the committed ledger of whole, locked periods, in the form's order (blocks A, B, C, D, H, I, E, F, G). " +
      "A box's amount is the sum of its accounts' balances on the side named (credit: credits minus debits), declared in whole kronor with the öre dropped; the exact sum is kept beside it. " +
      `Settlement entries (an entry that only moves VAT accounts 2610-2649 to ${VAT_SETTLEMENT_ACCOUNT}, rounding to ${ROUNDING_ACCOUNT}) never count; dormant VAT accounts (${DORMANT_VAT_ACCOUNTS.join(', ')}) feed no box. ` +
      'Sources and rules: docs/tax.md.',
    [
      '| Box | Block | Label | Source | Positive side | eSKD element |',
      '|---|---|---|---|---|---|',
      ...VAT_BOXES.map((box) => `| ${box.box} | ${box.block} | ${box.label} | ${sourceText(box.source)} | ${box.side} | \`${tag.get(box.box)}\` |`),
    ].join('\n'),
    '## VAT codes',
    'The VAT code of an account says what is booked there; the boxes above read it. An account without a code feeds no sales or purchase box.',
    [
      '| VAT code | Boxes |',
      '|---|---|',
      ...VAT_CODES.map((code) => `| \`${code}\` | ${boxesOf(code).join(', ') || '(none: purchases with input VAT in 48)'} |`),
    ].join('\n'),
  ];
}
