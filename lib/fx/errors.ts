import { ValidationError } from '../errors.ts';

/**
 * A rates file that cannot be read as any of the published layouts (or that contradicts another
 * file of the run). A bad input: the message names the file and what is wrong with it.
 */
export class RatesFileError extends ValidationError {
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super('gains.rates', `rates file ${file}: ${reason}`, options);
    this.file = file;
  }
}

/**
 * No published rate converts `currency` on `day`: the rates given do not cover that day (or not
 * that currency). The run stops rather than guess; the message names the day and the currency.
 */
export class MissingRateError extends ValidationError {
  readonly currency: string;
  readonly day: string;

  constructor(currency: string, day: string, reason: string) {
    super('gains.rates', `no rate for ${currency} on ${day}: ${reason}`);
    this.currency = currency;
    this.day = day;
  }
}
