import { describe, expect, it } from 'vitest';
import { ENV } from '../../lib/lambda/index.ts';

const MODULES = [
  'http-api',
  'monthly-start',
  'export-plan',
  'export-fetch-shard',
  'export-finish',
  'export-fail',
] as const;

describe('functions/*.ts', () => {
  it.each(MODULES)('exports a handler from %s without reading the environment at import', async (name) => {
    const module = (await import(`../../functions/${name}.ts`)) as { handler: unknown };

    expect(typeof module.handler).toBe('function');
  });

  it('rejects an invocation without configuration with a ConfigError naming the variable', async () => {
    expect(process.env[ENV.bucket]).toBeUndefined();
    const { handler } = await import('../../functions/export-plan.ts');

    await expect(handler({ jobId: '0'.repeat(32) })).rejects.toMatchObject({
      name: 'ConfigError',
      variable: ENV.bucket,
    });
  });
});
