/**
 * FOR LOCAL USE ONLY: the whole stack of `npm run serve` (simulator, s3rver, the HTTP API, the
 * export state machine as synthesized, run by aws-local-stepfunctions, with the workers). Kept out
 * of `lib/lambda` so that no Lambda bundle pulls in s3rver, the simulator or the CDK.
 */
export {
  createDevAuth,
  DEV_ISSUER,
  DEV_TOKEN_SECONDS,
  type DevAuth,
  withDevAuthorizer,
} from './dev-sign-in.ts';
export { LocalDefinitionError, LocalExecutionError, MachineSynthesisError } from './errors.ts';
export { type JobEndLines, jobEndLines } from './job-end-lines.ts';
export {
  type LocalEvent,
  type LocalExecuteOptions,
  type LocalMachine,
  loadLocalMachine,
  type TaskHandler,
} from './local-runner.ts';
export {
  LOCAL_BUCKET,
  LOCAL_MACHINE_CONFIG,
  type LocalService,
  type LocalServiceOptions,
  removeLocalStoreUnlessClosed,
  startLocalService,
} from './local-service.ts';
export {
  createStateMachineStarter,
  LOCAL_RETRY_INTERVAL_MS,
  type LocalRunEvents,
  type LocalStarter,
} from './state-machine.ts';
