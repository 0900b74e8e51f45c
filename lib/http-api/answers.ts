/**
 * The answers a route declares for the OpenAPI document (`createRoute`'s `responses`): JSON of a
 * schema, and the one error answer every route lists by status.
 */
import { ErrorBody } from '../api-schemas/index.ts';

/** An answer of JSON `schema`, for `createRoute`. */
export const json = <S>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** The error answer: `{ error: { code, message, field, issues } }`. */
export const ERROR = json('error: code, message, field, issues', ErrorBody);

/** The error answers of `statuses`, for `createRoute`. */
export const errors = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((status) => [status, ERROR])) as Record<S, typeof ERROR>;
