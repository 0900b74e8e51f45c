/**
 * FOR LOCAL USE ONLY: the whole stack of `npm run serve` (simulator, s3rver, the HTTP API, the
 * workers). Kept out of `lib/lambda` so that no Lambda bundle pulls in s3rver or the simulator.
 */
export {
  LOCAL_BUCKET,
  type LocalService,
  type LocalServiceOptions,
  startLocalService,
} from './local-service.ts';
