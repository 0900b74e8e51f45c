import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sink, table } from '../../../../test/support/writers.ts';
import type { Column, Row } from '../../../domain/table.ts';
import { guardFormula, wellFormed } from './cells.ts';
import { writeCsv } from './csv.ts';

/** Text cells with what CSV quoting and the guards care about: quotes, delimiters, CR, LF, formulas, lone surrogates. */
const text = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      'a',
      '"',
      ',',
      ';',
      '\t',
      '\r',
      '\n',
      '=',
      '+',
      '-',
      '@',
      "'",
      ' ',
      '\ud800',
      '\udc00',
      '€',
    ),
  }),
  fc.string({ unit: 'grapheme' }),
);

describe('writeCsv writes the bytes csv-stringify writes', () => {
  for (const delimiter of [',', ';', '\t', '|']) {
    it(`for any text, delimiter ${JSON.stringify(delimiter)}, either record delimiter`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.option(text, { nil: null }), { minLength: 3, maxLength: 3 }), {
            maxLength: 8,
          }),
          fc.constantFrom('\r\n' as const, '\n' as const),
          async (rows, recordDelimiter) => {
            const columns: Column[] = ['a', 'b', 'c'].map((key) => ({ key, header: key, kind: 'text' }));
            const { out, bytes } = sink();
            await writeCsv(table(columns, rows as Row[]), out, { delimiter, recordDelimiter });
            // Independently: the cells as the writer's documented rules make them, through csv-stringify.
            const records = [
              columns.map((column) => column.key),
              ...rows.map((row) => row.map((cell) => (cell === null ? '' : guardFormula(wellFormed(cell))))),
            ];
            const expected = stringify(records, {
              bom: true,
              delimiter,
              record_delimiter: recordDelimiter,
              quoted_match: /[\r\n]/,
            });
            expect((await bytes).toString('utf8')).toBe(expected);
          },
        ),
      );
    });
  }
});
