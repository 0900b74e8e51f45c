/**
 * The HTTP API's contract: its requests' and answers' zod schemas, which the API validates with
 * and documents (`lib/http-api`) and whose types the portal's client reads answers by.
 */
export {
  Accepted,
  ErrorBody,
  ExportRequestBody,
  IDEMPOTENCY_KEY,
  JobIdParams,
  JobList,
  JobView,
  KeptRatesList,
  LIST_LIMIT,
  ListQuery,
} from './schemas.ts';
