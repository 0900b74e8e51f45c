import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../lib/lambda/index.ts';

const FUNCTIONS_DIR = join(import.meta.dirname, '..', '..', 'functions');

/** Each entry point, the variable its first invocation needs first, and an event it accepts. */
const MODULES = [
  ['http-api', ENV.profiles, { rawPath: '/reports', requestContext: { http: { method: 'GET' } } }],
  ['monthly-start', ENV.profiles, { profile: 'acme', scheduledTime: '2026-11-01T00:30:00Z' }],
  ['export-plan', ENV.bucket, { jobId: '0'.repeat(32) }],
  ['export-fetch-shard', ENV.bucket, { jobId: '0'.repeat(32), shard: 0 }],
  ['export-finish', ENV.bucket, { jobId: '0'.repeat(32) }],
  ['export-fail', ENV.bucket, { jobId: '0'.repeat(32), error: { Error: 'Error' } }],
  ['rates-fetch', ENV.bucket, {}],
] as const;

describe('functions/*.ts', () => {
  it('lists exactly the entry points the stack deploys', () => {
    const files = readdirSync(FUNCTIONS_DIR).filter((name) => name.endsWith('.ts'));

    expect(files.map((name) => name.replace(/\.ts$/, '')).sort()).toEqual(
      MODULES.map(([name]) => name).sort(),
    );
  });

  it.each(MODULES.map(([name]) => name))('keeps %s under 15 lines', (name) => {
    const lines = readFileSync(join(FUNCTIONS_DIR, `${name}.ts`), 'utf8')
      .trimEnd()
      .split('\n');

    expect(lines.length).toBeLessThan(15);
  });

  it.each(MODULES)(
    'exports a handler from %s that reads no configuration at import and names %s when invoked without it',
    async (name, variable, event) => {
      expect(process.env[variable]).toBeUndefined();
      const module = (await import(`../../functions/${name}.ts`)) as {
        handler: (event: unknown) => Promise<unknown>;
      };

      await expect(module.handler(event)).rejects.toMatchObject({ name: 'ConfigError', variable });
    },
  );
});
