/**
 * Powertools logger (JSON lines), metrics (EMF, namespace `PbsExport`) and tracer, and the
 * wrapper every handler runs in: `jobId`/`profile` appended to each log line of the invocation,
 * metrics flushed at its end. The tracer is a no-op outside Lambda (no `AWS_EXECUTION_ENV`).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { Context } from 'aws-lambda';

/** CloudWatch namespace of every metric. */
export const METRICS_NAMESPACE = 'PbsExport';

/** The three Powertools utilities a handler uses. */
export interface Observability {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
}

/** Builds the utilities for one function (`serviceName` becomes the `service` key and dimension). */
export function createObservability(serviceName = 'pbs-export'): Observability {
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName }),
    tracer: new Tracer({ serviceName }),
  };
}

/** Log keys of one invocation. */
export interface InvocationKeys {
  jobId?: string;
  profile?: string;
}

/**
 * Runs one invocation: appends `keys` (and the Lambda context) to the log lines, logs a failure
 * once with its error, flushes stored metrics and clears the keys at the end.
 */
export async function runInvocation<T>(
  obs: Observability,
  keys: InvocationKeys,
  lambdaContext: Context | undefined,
  body: () => Promise<T>,
): Promise<T> {
  if (lambdaContext !== undefined) obs.logger.addContext(lambdaContext);
  appendJobKeys(obs, keys);
  try {
    const result = await body();
    obs.logger.info('invocation succeeded');
    return result;
  } catch (error) {
    // A job waiting for its profile's slot is retried by the state machine: not an error.
    if ((error as { code?: unknown } | null)?.code === 'profile_busy') {
      obs.logger.info('waiting: another export of the same API key is running', {
        reason: (error as Error).message,
      });
    } else {
      obs.logger.error('invocation failed', error as Error);
    }
    throw error;
  } finally {
    if (obs.metrics.hasStoredMetrics()) obs.metrics.publishStoredMetrics();
    obs.logger.resetKeys();
  }
}

/** Appends the defined keys to the current invocation's log lines and trace annotations. */
export function appendJobKeys(obs: Observability, keys: InvocationKeys): void {
  const defined = Object.fromEntries(Object.entries(keys).filter(([, value]) => typeof value === 'string'));
  if (Object.keys(defined).length === 0) return;
  obs.logger.appendKeys(defined);
  for (const [key, value] of Object.entries(defined)) obs.tracer.putAnnotation(key, value as string);
}
