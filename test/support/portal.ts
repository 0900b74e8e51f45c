/**
 * The portal in a real browser over `npm run serve`'s stack (`startLocalService`): Debian's
 * chromium driven by playwright-core with a fresh profile folder, the development sign-in, an
 * export through the API run to its end, and an S3 client of serve's local bucket (s3rver).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { JobRecord } from '../../lib/jobs/index.ts';
import type { LocalService } from '../../lib/local/index.ts';
import { createS3Client } from '../../lib/storage/index.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

/** A headless chromium with its own profile folder: `close` ends it and removes the folder. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Starts headless chromium with a fresh profile folder, 1200×860 unless `viewport` says otherwise;
 * `acceptDownloads` for tests that download.
 */
export async function openBrowser(
  options: { acceptDownloads?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<Browser> {
  const profileDir = await mkdtemp(join(tmpdir(), 'pbs-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    acceptDownloads: options.acceptDownloads ?? false,
    viewport: options.viewport ?? { width: 1200, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the portal at `baseUrl`, is sent to its sign-in page, signs in with the development
 * sign-in as a user of `profile` and waits for the home page.
 */
export async function signIn(page: Page, baseUrl: string, profile = 'demo'): Promise<void> {
  await page.goto(`${baseUrl}/portal`);
  await page.waitForURL(`${baseUrl}/portal/sign-in`);
  await page.getByLabel(profile).check();
  await page.getByRole('button', { name: 'Sign in (development)' }).click();
  await page.waitForURL(`${baseUrl}/portal`);
}

/**
 * Asks serve's API (`POST /reports`, bearer `token`) for an export of `body` and waits until the
 * local state machine has nothing left to run: the stored job, whatever its state. Throws when the
 * API does not accept the request.
 */
export async function exportThroughApi(
  service: LocalService,
  token: string,
  body: object,
): Promise<JobRecord> {
  const started = await fetch(`${service.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (started.status !== 202)
    throw new Error(`POST /reports answered ${started.status}: ${await started.text()}`);
  const { jobId } = (await started.json()) as { jobId: string };
  await service.starter.idle();
  const stored = await service.jobs.get(jobId);
  if (stored === undefined || stored === null) throw new Error(`job ${jobId} is not stored`);
  return stored;
}

/** An S3 client of serve's local bucket (s3rver's fixed credentials); `destroy()` it when done. */
export function serveS3(service: LocalService): Promise<S3Client> {
  return createS3Client({
    region: 'us-east-1',
    endpoint: service.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
}
