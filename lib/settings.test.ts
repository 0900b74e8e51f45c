import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { loadServiceSettings, parseServiceSettings } from './settings.ts';

const env = {
  PBS_BASE_URL: 'https://pbs.example.com/api',
  PBS_API_KEY: 'key-1',
  PBS_API_SECRET: 'top-secret-value',
};

describe('loadServiceSettings', () => {
  it('returns the settings given by the environment', async () => {
    await expect(loadServiceSettings(env)).resolves.toEqual({
      baseUrl: 'https://pbs.example.com/api',
      apiKey: 'key-1',
      apiSecret: 'top-secret-value',
    });
  });

  it('returns file settings overridden by the environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pbs-settings-'));
    const file = join(dir, 'pbs.json');
    await writeFile(
      file,
      JSON.stringify({
        baseUrl: 'https://other.example.com',
        apiKey: 'file-key',
        apiSecret: 'file-secret',
        requestsPerSecond: 5,
        shape: { pagination: { style: 'offset' }, timeline: { path: '/v2/timeline' } },
      }),
    );
    const settings = await loadServiceSettings({ PBS_API_KEY: 'env-key' }, file);
    await rm(dir, { recursive: true, force: true });
    expect(settings).toMatchObject({
      baseUrl: 'https://other.example.com',
      apiKey: 'env-key',
      requestsPerSecond: 5,
      shape: {
        pagination: { style: 'offset', offsetParam: 'offset', limitParam: 'limit', limit: 500 },
        timeline: { path: '/v2/timeline' },
      },
    });
  });

  it('refuses a missing secret naming the setting and its variable', async () => {
    const { PBS_API_SECRET: _omitted, ...withoutSecret } = env;
    await expect(loadServiceSettings(withoutSecret)).rejects.toThrow(
      'apiSecret: is required (set PBS_API_SECRET)',
    );
  });

  it('refuses a config file that is not JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pbs-settings-'));
    const file = join(dir, 'pbs.json');
    await writeFile(file, '{ not json');
    await expect(loadServiceSettings(env, file)).rejects.toBeInstanceOf(ValidationError);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('parseServiceSettings', () => {
  it('refuses an unknown pagination style naming the field', () => {
    expect(() =>
      parseServiceSettings({ ...settingsOf(env), shape: { pagination: { style: 'pages' } } }),
    ).toThrow(/^shape\.pagination\.style: /);
  });

  it('refuses a timeline path outside V2 naming the field', () => {
    expect(() =>
      parseServiceSettings({ ...settingsOf(env), shape: { timeline: { path: '/v1/timeline' } } }),
    ).toThrow(/^shape\.timeline\.path: /);
  });

  it('refuses an offset-less zone that is not an IANA zone, and an unknown epoch unit, naming the field', () => {
    expect(() =>
      parseServiceSettings({ ...settingsOf(env), shape: { instants: { offsetlessZone: 'CEST' } } }),
    ).toThrow(/^shape\.instants\.offsetlessZone: not an IANA time zone/);
    expect(() =>
      parseServiceSettings({ ...settingsOf(env), shape: { instants: { epochUnit: 'minutes' } } }),
    ).toThrow(/^shape\.instants\.epochUnit: /);
  });

  it('refuses a balances endpoint without {ledgerId}, and an unknown balances source, naming the field', () => {
    const endpoint = { source: 'endpoint', pathTemplate: '/v2/balances' };
    expect(() => parseServiceSettings({ ...settingsOf(env), shape: { balances: endpoint } })).toThrow(
      /^shape\.balances\.pathTemplate: must contain \{ledgerId\}/,
    );
    expect(() =>
      parseServiceSettings({ ...settingsOf(env), shape: { balances: { source: 'guess' } } }),
    ).toThrow(/^shape\.balances\.source: /);
    const none = { balances: { source: 'none' } };
    expect(parseServiceSettings({ ...settingsOf(env), shape: none }).shape).toEqual(none);
  });

  it('returns the instants settings of the file', () => {
    const shape = { instants: { offsetlessZone: 'Europe/Berlin', epochUnit: 'seconds' } };
    expect(parseServiceSettings({ ...settingsOf(env), shape }).shape).toEqual(shape);
  });

  it('never puts the secret value in its error', () => {
    try {
      parseServiceSettings({ ...settingsOf(env), baseUrl: 'ftp://x', apiSecret: 'top-secret-value' });
      expect.unreachable();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('top-secret-value');
    }
  });
});

function settingsOf(e: typeof env) {
  return { baseUrl: e.PBS_BASE_URL, apiKey: e.PBS_API_KEY, apiSecret: e.PBS_API_SECRET };
}
