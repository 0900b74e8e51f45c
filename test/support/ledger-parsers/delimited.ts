/**
 * A reader of delimited text as RFC 4180 and the DATEV-Format describe it, for the ledger
 * format tests: records end with CRLF (a bare LF or CR outside quotes is refused), fields are
 * separated by one delimiter, a field in double quotes may hold the delimiter, and a doubled
 * quote inside it is one quote. Each field says whether it was quoted (DATEV tells text from
 * numbers that way). Written from the specifications, not from the project's writers.
 */

/** One field as read. */
export interface Field {
  value: string;
  quoted: boolean;
}

/** Splits `text` into records of fields; throws naming the line on a malformed one. */
export function readDelimited(text: string, delimiter: ',' | ';'): Field[][] {
  const records: Field[][] = [];
  let record: Field[] = [];
  let i = 0;
  let line = 1;
  const fail = (why: string): never => {
    throw new Error(`line ${line}: ${why}`);
  };
  if (text === '') return records;
  for (;;) {
    let field: Field;
    if (text[i] === '"') {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) fail('a quoted field is not closed');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (text[i] === '\n') line += 1;
        value += text[i];
        i += 1;
      }
      field = { value, quoted: true };
    } else {
      let value = '';
      while (i < text.length && text[i] !== delimiter && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') fail('a quote inside an unquoted field');
        value += text[i];
        i += 1;
      }
      field = { value, quoted: false };
    }
    record.push(field);
    if (text[i] === delimiter) {
      i += 1;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
      line += 1;
      if (i >= text.length) return records;
      continue;
    }
    if (i >= text.length) fail('the last record does not end with CRLF');
    fail(`a record ends with ${JSON.stringify(text[i])} instead of CRLF`);
  }
}
