import { describe, expect, it } from 'vitest';
import { readCsvRecords } from './csv-records.ts';
import { CsvSyntaxError } from './errors.ts';

describe('readCsvRecords', () => {
  it('keeps cells as written: quoted commas, doubled quotes, decimals as text, a BOM and CRLF dropped', () => {
    const text = '\uFEFFtoken,cost\r\n"BTC, cold","1,000.50"\r\n"say ""hi""",0.85760\r\n';
    expect(readCsvRecords(text).map((record) => record.cells)).toEqual([
      ['token', 'cost'],
      ['BTC, cold', '1,000.50'],
      ['say "hi"', '0.85760'],
    ]);
  });

  it('gives each record the line it starts on, blank lines and line breaks inside quotes (CRLF once) counted', () => {
    const text = 'a,b\r\n"x\r\ny",1\r\n\r\n,\r\nq,"r\ns"\r\nu,v\r\n';
    expect(readCsvRecords(text)).toEqual([
      { cells: ['a', 'b'], line: 1 },
      { cells: ['x\r\ny', '1'], line: 2 },
      { cells: ['q', 'r\ns'], line: 6 },
      { cells: ['u', 'v'], line: 8 },
    ]);
  });

  it('names the line and field of text after a closing quote, after a CRLF inside quotes', () => {
    const text = 'a,b\r\n"x\r\ny",1\r\nq,"r"s\r\n';
    expect(() => readCsvRecords(text)).toThrow(
      new CsvSyntaxError(4, 1, 2, 'text after a closing quote (a quote inside a quoted field is written "")'),
    );
  });

  it('reads only the first records when asked, leaving a fault further on unread', () => {
    expect(readCsvRecords('a,b\nx,"y\n', { to: 1 })).toEqual([{ cells: ['a', 'b'], line: 1 }]);
  });
});
