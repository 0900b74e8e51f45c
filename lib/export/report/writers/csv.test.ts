import { describe, expect, it } from 'vitest';
import { parseCsv, SlowWritable, sink, table } from '../../../../test/support/writers.ts';
import type { Column, Row } from '../../../domain/table.ts';
import { ValidationError } from '../../../errors.ts';
import { unguardFormula } from './cells.ts';
import { writeCsv } from './csv.ts';
import { ReportCellError } from './errors.ts';

const BOM = '\ufeff';
const note: Column = { key: 'note', header: 'Note', kind: 'text' };
const amount: Column = { key: 'amount', header: 'Amount', kind: 'decimal' };
const count: Column = { key: 'count', header: 'Count', kind: 'integer' };
const at = (timeZone?: string): Column => ({ key: 'at', header: 'At', kind: 'datetime', timeZone });

async function csv(
  columns: Column[],
  rows: Row[],
  options?: Parameters<typeof writeCsv>[2],
): Promise<string> {
  const { out, bytes } = sink();
  await writeCsv(table(columns, rows), out, options);
  return (await bytes).toString('utf8');
}

describe('writeCsv', () => {
  it('returns a file starting with a UTF-8 BOM by default', async () => {
    const text = await csv([note], [['a']]);

    expect(text.startsWith(BOM)).toBe(true);
  });

  it('returns a file without BOM when bom is false', async () => {
    const text = await csv([note], [['a']], { bom: false });

    expect(text).toBe('note\r\na\r\n');
  });

  it('returns the column keys as header row', async () => {
    const text = await csv([note, amount, count], [], { bom: false });

    expect(text).toBe('note,amount,count\r\n');
  });

  it('returns the data row count', async () => {
    const { out } = sink();
    out.resume();

    const result = await writeCsv(table([note], [['a'], ['b'], [null]]), out);

    expect(result).toEqual({ rows: 3 });
  });

  it('returns LF records when recordDelimiter is \\n', async () => {
    const text = await csv([note], [['a']], { bom: false, recordDelimiter: '\n' });

    expect(text).toBe('note\na\n');
  });

  it('returns decimal cells and the numbers inside texts with the decimal separator, integers, ids and versions alone', async () => {
    const text = await csv(
      [note, amount, count],
      [
        ['264.198939 USDC; 0.5 ETH', '-1234.56', '42'],
        ['v0.1.0 at 127.0.0.1, tx_01JG.x', null, null],
      ],
      { bom: false, delimiter: ';', decimalSeparator: ',' },
    );

    expect(text).toBe(
      'note;amount;count\r\n"264,198939 USDC; 0,5 ETH";-1234,56;42\r\nv0.1.0 at 127.0.0.1, tx_01JG.x;;\r\n',
    );
  });

  it('returns datetimes of the European dialect as the local date-time of the column zone with a decimal comma, the offset in the next column', async () => {
    const text = await csv(
      [at('Europe/Berlin'), at('UTC')],
      [['2025-10-01T22:36:46.120Z', '2025-10-01T22:36:46.120Z']],
      { bom: false, delimiter: ';', decimalSeparator: ',' },
    );

    expect(text).toBe('at;at_utc_offset;at\r\n2025-10-02T00:36:46,120;UTC+02:00;2025-10-01T22:36:46,120\r\n');
  });

  it('refuses a decimal separator equal to the delimiter, naming the option', async () => {
    const { out } = sink();

    const written = writeCsv(table([amount], []), out, { delimiter: ',', decimalSeparator: ',' });

    await expect(written).rejects.toThrow(ValidationError);
    await expect(written).rejects.toMatchObject({ field: 'decimalSeparator' });
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])(
    'returns text starting with %j prefixed by an apostrophe',
    async (start) => {
      const value = `${start}HYPERLINK("http://x")`;

      const text = await csv([note], [[value]], { bom: false });

      expect(parseCsv(text)[1]).toEqual([`'${value}`]);
    },
  );

  it('returns text starting with quotes before a formula character guarded once more, so the guard can be undone', async () => {
    const values = ['=1', "'=1", "''@x", "'plain", '-', 'a=1'];

    const text = await csv(
      [note],
      values.map((v) => [v]),
      { bom: false },
    );

    expect(parseCsv(text).slice(1).flat()).toEqual(["'=1", "''=1", "'''@x", "'plain", "'-", 'a=1']);
    expect(parseCsv(text).slice(1).flat().map(unguardFormula)).toEqual(values);
  });

  it('returns control characters as sent and lone surrogates as U+FFFD', async () => {
    const text = await csv([note], [['a\u0000b\u001b\u007fc'], ['x\ud800y']], { bom: false });

    expect(parseCsv(text).slice(1).flat()).toEqual(['a\u0000b\u001b\u007fc', 'x\ufffdy']);
  });

  it('returns a negative decimal verbatim, without formula guard', async () => {
    const text = await csv([amount], [['-1.25']], { bom: false });

    expect(text).toBe('amount\r\n-1.25\r\n');
  });

  it.each(['=1+2', '1e5', '1,5', ' 1.5', '+1.5', '.5', 'NaN'])(
    'refuses %j in a decimal column, naming the column',
    async (value) => {
      const { out } = sink();

      const written = writeCsv(
        table(
          [note, amount],
          [
            ['ok', '1.00'],
            ['ok', value],
          ],
        ),
        out,
      );

      await expect(written).rejects.toThrow(ReportCellError);
      await expect(written).rejects.toMatchObject({ column: 'amount', row: 2 });
    },
  );

  it('refuses a non-integer in an integer column, naming the column', async () => {
    const { out } = sink();

    await expect(writeCsv(table([count], [['1.5']]), out)).rejects.toMatchObject({ column: 'count' });
  });

  it('returns quotes, delimiters, line breaks and unicode escaped so they read back equal', async () => {
    const values = ['say "hi"', 'a,b', 'line\nbreak', 'cr\r\nlf', 'Zürich — 東京 🚀', ''];
    const rows = values.map((value) => [value]);

    const text = await csv([note], rows, { bom: false });

    expect(parseCsv(text).slice(1)).toEqual(rows);
  });

  it('returns null cells as empty fields', async () => {
    const text = await csv([note, amount, count, at()], [[null, null, null, null]], { bom: false });

    expect(text).toBe('note,amount,count,at\r\n,,,\r\n');
  });

  it('returns UTC datetimes as the ISO-8601 local date-time, without Z and without an offset column', async () => {
    const text = await csv([at(), at('Etc/UTC')], [['2025-03-14T09:26:53Z', '2025-03-14T09:26:53Z']], {
      bom: false,
    });

    expect(parseCsv(text)).toEqual([
      ['at', 'at'],
      ['2025-03-14T09:26:53.000', '2025-03-14T09:26:53.000'],
    ]);
  });

  it('returns Europe/Berlin datetimes as the winter wall time, the offset in the next column', async () => {
    const text = await csv([at('Europe/Berlin')], [['2025-03-14T09:26:53.000Z']], { bom: false });

    expect(parseCsv(text)).toEqual([
      ['at', 'at_utc_offset'],
      ['2025-03-14T10:26:53.000', 'UTC+01:00'],
    ]);
  });

  it('returns Europe/Berlin datetimes as the summer wall time, the offset in the next column', async () => {
    const text = await csv([at('Europe/Berlin')], [['2025-07-14T09:26:53.123Z']], { bom: false });

    expect(parseCsv(text)[1]).toEqual(['2025-07-14T11:26:53.123', 'UTC+02:00']);
  });

  it('returns the two instants of a fall-back hour with the same wall time and different offsets', async () => {
    const text = await csv(
      [at('America/New_York')],
      [['2025-11-02T05:30:00.000Z'], ['2025-11-02T06:30:00.000Z'], [null]],
      { bom: false },
    );

    expect(parseCsv(text).slice(1)).toEqual([
      ['2025-11-02T01:30:00.000', 'UTC-04:00'],
      ['2025-11-02T01:30:00.000', 'UTC-05:00'],
      ['', ''],
    ]);
  });

  it('refuses a datetime column with an unknown time zone', async () => {
    const { out } = sink();

    await expect(writeCsv(table([at('Mars/Olympus')], []), out)).rejects.toMatchObject({
      field: 'transactions.at.timeZone',
    });
  });

  it('refuses a row whose length differs from the columns', async () => {
    const { out } = sink();

    await expect(writeCsv(table([note, amount], [['only one']]), out)).rejects.toThrow(ReportCellError);
  });

  it('returns all rows in order to a slow writer without running ahead of it', async () => {
    // Rows of a few bytes: output is written in chunks of up to 64 KiB, some 10,000 of these rows.
    const total = 100_000;
    let produced = 0;
    let written = -1; // the header line
    let maxLead = 0;
    const out = new SlowWritable(1024, (chunk) => {
      written += chunk.toString().split('\n').length - 1;
    });
    const source = {
      spec: { name: 'transactions', title: 'Transactions', columns: [count] },
      async *rows() {
        for (let i = 0; i < total; i += 1) {
          maxLead = Math.max(maxLead, produced - written);
          produced += 1;
          yield [String(i)];
        }
      },
    };

    await writeCsv(source, out, { bom: false });

    const lines = out.bytes().toString().split('\r\n');
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: total }, (_, i) => String(i)));
    expect(maxLead).toBeLessThan(total / 4);
  });
});
