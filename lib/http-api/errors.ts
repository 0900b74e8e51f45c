/** Typed errors of the HTTP API. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { PbsExportError } from '../errors.ts';

/** The event and result types of the handler (API Gateway HTTP API, payload format 2.0). */
export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** An answer the API chose on purpose (validation, not found, …), thrown to end the request. */
export class ApiAnswer extends PbsExportError {
  constructor(readonly result: ApiResult) {
    super('api_answer', `HTTP ${result.statusCode}`);
  }
}
