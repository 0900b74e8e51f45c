/**
 * The checks of a `POST /reports` body before its schema: declared JSON (415), at most
 * {@link MAX_BODY_BYTES} (413), valid UTF-8, JSON, an object (400). Run before the zod validator so
 * that each refusal names the header or the body in the API's own terms.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.ts';

/** Largest accepted request body: 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * 415 unless the body is declared `application/json` (parameters allowed, a charset only UTF-8):
 * a form or `text/plain` POST, which any web page can make a browser send without asking, never
 * starts an export.
 */
const requireJsonContentType: MiddlewareHandler = async (c, next) => {
  const value = c.req.header('content-type');
  const [type, ...parameters] = (value ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (value === undefined) throw new UnsupportedMediaTypeError('required: application/json');
  if (type !== 'application/json') throw new UnsupportedMediaTypeError('expected application/json');
  if (charset !== undefined && charset !== 'utf-8')
    throw new UnsupportedMediaTypeError('expected charset=utf-8');
  await next();
};

/** Reads the body (bounded by `bodyLimit`, which stops reading a longer one) and checks it is a JSON object. */
const requireJsonObject: MiddlewareHandler = async (c, next) => {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length === 0) throw new InvalidRequestError('body', 'required: a JSON export request');
  let text: string;
  try {
    // Fatal: invalid bytes are refused, not silently replaced by U+FFFD inside a field.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InvalidRequestError('body', 'is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidRequestError('body', 'is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidRequestError('body', 'expected a JSON object');
  }
  await next();
};

/** The body checks, in order: media type, size, bytes, JSON. */
export const jsonObjectBody: MiddlewareHandler[] = [
  requireJsonContentType,
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new PayloadTooLargeError(MAX_BODY_BYTES);
    },
  }),
  requireJsonObject,
];
