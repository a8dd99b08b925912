import { encodeSie, sieAmount, sieDate, sieRecord, sieText } from '../../domain/sie/format.ts';
import { addDays } from '../../domain/ledger/calendar.ts';

/**
 * A generated SIE 4 file (CP437, CRLF) of `count` verifications in series A, each two #TRANS rows
 * (bank against sales), spread over 2026. Amounts vary so a lost or doubled verification shows in
 * the sums; `amountOf(i)` says verification i's amount in öre.
 */
export const generatedAmount = (index: number): number => 10_000 + ((index * 7_919) % 90_000);

export function generatedSie(count: number, options: { series?: string } = {}): Buffer {
  const series = options.series ?? 'A';
  const parts: string[] = [
    sieRecord('FLAGGA', '0'),
    sieRecord('FORMAT', 'PC8'),
    sieRecord('SIETYP', '4'),
    sieRecord('PROGRAM', sieText('Test generator'), '1'),
    sieRecord('FNAMN', sieText('Genererat AB')),
    sieRecord('RAR', '0', '20260101', '20261231'),
    sieRecord('KONTO', '1930', sieText('Företagskonto')),
    sieRecord('KONTO', '3041', sieText('Försäljning tjänst')),
  ];
  for (let index = 1; index <= count; index += 1) {
    const amount = generatedAmount(index);
    parts.push(
      sieRecord('VER', series, String(index), sieDate(addDays('2026-01-01', index % 365)), sieText(`Ver ${index}`)),
      '{\r\n',
      `   ${sieRecord('TRANS', '1930', '{}', sieAmount(amount))}`,
      `   ${sieRecord('TRANS', '3041', '{}', sieAmount(-amount))}`,
      '}\r\n',
    );
  }
  return Buffer.from(encodeSie(parts.join('')));
}
