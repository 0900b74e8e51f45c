/**
 * Rates files in the layouts the ECB and HMRC publish (written here, nothing is downloaded), and
 * a loopback HTTP server that serves them as the owners' sites would (404 for what is missing).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { DateTime } from 'luxon';

/** A ZIP archive of one deflated file, laid out as APPNOTE.TXT says (local header, data, directory, end). */
export function zipOne(name: string, content: Buffer): Buffer {
  return zipDeflated(name, deflateRawSync(content), { crc: crc32(content), size: content.length });
}

/**
 * A ZIP archive of one entry whose deflated `data` is given, with the CRC-32 and size its headers
 * state (a bomb's may lie about its size).
 */
export function zipDeflated(name: string, data: Buffer, stated: { crc: number; size: number }): Buffer {
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(stated.crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(stated.size, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const entry = Buffer.alloc(46);
  entry.writeUInt32LE(0x02014b50, 0);
  entry.writeUInt16LE(20, 4);
  entry.writeUInt16LE(20, 6);
  entry.writeUInt16LE(8, 10);
  entry.writeUInt32LE(stated.crc, 16);
  entry.writeUInt32LE(data.length, 20);
  entry.writeUInt32LE(stated.size, 24);
  entry.writeUInt16LE(nameBytes.length, 28);
  const directoryAt = local.length + nameBytes.length + data.length;
  const directory = Buffer.concat([entry, nameBytes]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(directoryAt, 16);
  return Buffer.concat([local, nameBytes, data, directory, end]);
}

/**
 * A ZIP bomb: `name` holding `mebibytes` MiB of zeros, deflated to about a thousandth of that.
 * Built in a moment: one MiB of zeros deflated with a full flush is a block that needs nothing
 * before it, so the stream is that block `mebibytes` times and a final empty block. Its headers
 * state the true size and CRC-32, or with `statedSize` a smaller size (as a bomb that hides).
 */
export function zerosZipBomb(name: string, mebibytes: number, statedSize?: number): Buffer {
  const mebibyte = Buffer.alloc(1024 * 1024);
  const block = deflateRawSync(mebibyte, { finishFlush: constants.Z_FULL_FLUSH });
  const data = Buffer.concat([...Array<Buffer>(mebibytes).fill(block), deflateRawSync(Buffer.alloc(0))]);
  let crc = 0;
  for (let i = 0; i < mebibytes; i++) crc = crc32(mebibyte, crc);
  return zipDeflated(name, data, { crc, size: statedSize ?? mebibytes * mebibyte.length });
}

/** A made-up ECB rate (USD per 1 EUR) for a publication day, 4 decimals as the ECB writes it. */
export function usdPerEuro(day: string): string {
  const index = Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
  return (1.05 + (index % 97) * 0.0011).toFixed(4);
}

/** TARGET holidays of 2024 the ECB published no rates on (besides weekends), as in the real file. */
const NO_PUBLICATION = new Set([
  '2024-01-01',
  '2024-03-29',
  '2024-04-01',
  '2024-05-01',
  '2024-12-25',
  '2024-12-26',
]);

/** Whether the ECB published rates on `day`. */
export const ecbPublished = (day: DateTime) => day.weekday <= 5 && !NO_PUBLICATION.has(day.toISODate() ?? '');

/** `eurofxref-hist.csv` from `last` back to 2022-12-01: newest day first, a trailing comma, N/A where not quoted. */
export function ecbHistCsv(last = '2025-12-31'): string {
  const lines: string[] = [];
  for (
    let day = DateTime.fromISO(last, { zone: 'UTC' });
    day.toISODate() !== '2022-11-30';
    day = day.minus({ days: 1 })
  ) {
    if (ecbPublished(day))
      lines.push(`${day.toISODate()},${usdPerEuro(day.toISODate() as string)},161.17,N/A,0.8512,`);
  }
  return `Date,USD,JPY,CYP,GBP,\n${lines.join('\n')}\n`;
}

/** `eurofxref-hist.zip` as the ECB publishes it: the history CSV in a ZIP. */
export const ecbHistZip = (last?: string): Buffer =>
  zipOne('eurofxref-hist.csv', Buffer.from(ecbHistCsv(last)));

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One month in HMRC's monthly XML layout (exchangeRateMonthList / exchangeRate / rateNew). */
export function hmrcMonthXml(year: number, month: number, usd = '1.2766'): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const name = MONTH_NAMES[month - 1];
  return `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/${name}/${year} to ${last}/${name}/${year}">
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>${usd}</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;
}

/** A loopback server answering each path from `files` (changeable between requests), 404 otherwise. */
export interface RatesServer {
  url: string;
  files: Map<string, Buffer | string>;
  /** Paths requested so far. */
  requested: string[];
  close(): Promise<void>;
}

/** Starts a {@link RatesServer} on 127.0.0.1. */
export async function startRatesServer(): Promise<RatesServer> {
  const files = new Map<string, Buffer | string>();
  const requested: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requested.push(path);
    const body = files.get(path);
    if (body === undefined) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
      return;
    }
    response.writeHead(200).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    requested,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
