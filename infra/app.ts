/** Entry of the CDK app (`cdk.json`: `npx tsx infra/app.ts`). */
import { createPbsApp } from './pbs-app.ts';

createPbsApp();
