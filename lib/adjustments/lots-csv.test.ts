import { describe, expect, it } from 'vitest';
import { LotsCsvError } from './errors.ts';
import { importLotsCsv } from './lots-csv.ts';

describe('importLotsCsv', () => {
  it('reads our columns, quoted cells and days', () => {
    const csv =
      'token,account,quantity,cost,acquired_at\r\nBTC,"cold, wallet",2,7000,2019-05-01\r\nETH,,1.5,300.25,2020-01-02T03:04:05Z\r\n';
    expect(importLotsCsv(csv)).toEqual([
      {
        token: 'BTC',
        account: 'cold, wallet',
        quantity: '2',
        cost: '7000',
        acquiredAt: '2019-05-01T00:00:00Z',
      },
      { token: 'ETH', quantity: '1.5', cost: '300.25', acquiredAt: '2020-01-02T03:04:05Z' },
    ]);
  });

  it("reads another tool's closing-lots headers (Asset, Amount, Cost basis (USD), Date acquired, Wallet)", () => {
    const csv = 'Asset,Amount,Cost basis (USD),Date acquired,Wallet\nSOL,10,250,2021-06-30,Phantom\n';
    expect(importLotsCsv(csv)).toEqual([
      { token: 'SOL', account: 'Phantom', quantity: '10', cost: '250', acquiredAt: '2021-06-30T00:00:00Z' },
    ]);
  });

  it('names the row and column of a bad cell, and a missing column', () => {
    const csv = 'token,quantity,cost,acquired_at\nBTC,1,7000,2019-05-01\nETH,1,$300,2020-01-01\n';
    expect(() => importLotsCsv(csv)).toThrow(
      new LotsCsvError(2, 'cost', '"$300" must be a plain non-negative decimal such as 0.5'),
    );
    expect(() => importLotsCsv('token,quantity,cost,acquired_at\nBTC,1,1,05/01/2019\n')).toThrow(
      /lots CSV row 1, column acquired_at: "05\/01\/2019" is no ISO instant/,
    );
    expect(() => importLotsCsv('token,quantity,acquired_at\nBTC,1,2019-05-01\n')).toThrow(
      /lots CSV row 0, column cost: no such column in the header/,
    );
  });

  it('refuses a quote left open in the last column, naming row, column and line, rather than swallow the rows after it', () => {
    const csv =
      'token,quantity,cost,acquired_at,account\nBTC,1,7000,2019-05-01,"cold\nETH,2,300,2020-01-01,hot\n';
    expect(() => importLotsCsv(csv)).toThrow(
      new LotsCsvError(
        1,
        'account',
        'line 2: a quote opened on this line is not closed before the end of the file',
      ),
    );
  });

  it('refuses a quote inside an unquoted cell, naming row, column and line, rather than read on to the next quote', () => {
    const csv =
      'token,quantity,cost,acquired_at,account\r\nBTC,1,7000,2019-05-01,cold\r\n\r\nETH,2,300,2020-01-01,Bob"s\r\nSOL,3,30,2021-01-01,hot\r\n';
    expect(() => importLotsCsv(csv)).toThrow(
      new LotsCsvError(2, 'account', 'line 4: a quote inside a field that does not start with one'),
    );
  });
});
