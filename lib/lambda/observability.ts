/**
 * Powertools logger (JSON lines), metrics (EMF, namespace `PbsExport`) and tracer, and the Middy
 * chain every handler runs in: Powertools' own middlewares (`captureLambdaHandler`,
 * `injectLambdaContext`, `logMetrics`) plus {@link invocationOutcome}, which puts `jobId` and
 * `profile` on each log line and logs how the invocation ended. The tracer is a no-op outside
 * Lambda (no `AWS_EXECUTION_ENV`).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { ProfileBusyError } from '../jobs/index.ts';
import { inputFaultOf } from './input-faults.ts';

/** CloudWatch namespace of every metric. */
export const METRICS_NAMESPACE = 'PbsExport';

/** The three Powertools utilities a handler uses. */
export interface Observability {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
  /**
   * A request found invalid is logged as info, not as a warning: where its job's notice already
   * tells the reader why (`npm run serve` prints it), once is enough.
   */
  invalidRequestsAsInfo?: true;
}

/** Builds the utilities for one function (`serviceName` becomes the `service` key and dimension). */
export function createObservability(serviceName = 'pbs-export'): Observability {
  const logger = new Logger({ serviceName });
  // Most invocations record no metric (a GET, a plan waiting for its slot); Powertools would warn
  // about each empty flush. That one warning goes to debug, every other one stays a warning.
  const metricsLogger = {
    debug: (message: string) => logger.debug(message),
    info: (message: string) => logger.info(message),
    error: (message: string) => logger.error(message),
    warn: (message: string) =>
      message.startsWith('No application metrics') ? logger.debug(message) : logger.warn(message),
  };
  return {
    logger,
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName, logger: metricsLogger }),
    tracer: new Tracer({ serviceName }),
  };
}

/** Log keys of one invocation. */
export interface InvocationKeys {
  jobId?: string;
  profile?: string;
}

/** Appends the defined keys to the current invocation's log lines and trace annotations. */
export function appendJobKeys(obs: Observability, keys: InvocationKeys): void {
  const defined = Object.fromEntries(Object.entries(keys).filter(([, value]) => typeof value === 'string'));
  if (Object.keys(defined).length === 0) return;
  obs.logger.appendKeys(defined);
  for (const [key, value] of Object.entries(defined)) obs.tracer.putAnnotation(key, value as string);
}

/**
 * Appends the event's keys (`jobId`, `profile`) before the handler, logs `invocation succeeded`
 * after it, and a failure once with its error; a job waiting for its profile's slot
 * ({@link ProfileBusyError}, retried by the state machine) is logged as info, not as an error; a
 * request found invalid or adjustments that do not apply (the input's fault, not the code's:
 * {@link inputFaultOf}) as one warning line with the field and the reason, without a stack trace.
 */
export function invocationOutcome<E>(
  obs: Observability,
  keysOf: (event: E) => InvocationKeys,
): MiddlewareObj<E, unknown, Error, Context> {
  return {
    before: (request) => appendJobKeys(obs, keysOf(request.event)),
    after: () => obs.logger.info('invocation succeeded'),
    onError: (request) => {
      const fault = inputFaultOf(request.error);
      if (request.error instanceof ProfileBusyError) {
        obs.logger.info('waiting: another export of the same API key is running', {
          reason: request.error.message,
        });
      } else if (fault !== null) {
        // The input is at fault, not the code: the job's reason says why; no stack trace.
        const { message, ...keys } = fault;
        const log = obs.invalidRequestsAsInfo ? obs.logger.info : obs.logger.warn;
        log.call(obs.logger, message, keys);
      } else {
        obs.logger.error('invocation failed', request.error as Error);
      }
    },
  };
}

/** A Lambda handler: the event, the (optional outside Lambda) context, the result. */
export type LambdaHandler<E, R> = (event: E, context?: Context) => Promise<R>;

/**
 * `body` on Middy with the Powertools middlewares: the tracer's segment, the logger's Lambda
 * context (keys reset after each invocation), the metrics flushed after each invocation, and
 * {@link invocationOutcome}. `timeoutEarlyInMillis: 0`: a task that runs out of time ends as
 * Lambda ends it (`States.Timeout` for the state machine), not with Middy's own error.
 */
export function withObservability<E, R>(
  obs: Observability,
  keysOf: (event: E) => InvocationKeys,
  body: (event: E) => Promise<R>,
): LambdaHandler<E, R> {
  const handler = middy<E, R, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(captureLambdaHandler(obs.tracer, { captureResponse: false }))
    .use(injectLambdaContext(obs.logger, { resetKeys: true }))
    .use(logMetrics(obs.metrics))
    .use(invocationOutcome<E>(obs, keysOf))
    .handler((event) => body(event));
  return (event, context) => handler(event, context ?? ({} as Context));
}
