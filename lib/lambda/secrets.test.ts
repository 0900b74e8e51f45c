import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createSecretReader } from './secrets.ts';
import { createServiceFactory } from './service.ts';

const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/acme-AbCdEf';
const SECRET = 'sk_test_5f1e2d3c4b5a69788f1e2d3c4b5a6978';

function mockedSecrets(secretString: string) {
  const client = new SecretsManagerClient({ region: 'eu-central-1' });
  const mock = mockClient(client);
  mock.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ ARN, SecretString: secretString });
  return { client, mock };
}

describe('createSecretReader', () => {
  it('returns the secret parsed as JSON', async () => {
    const { client } = mockedSecrets(JSON.stringify({ apiKey: 'pk', apiSecret: SECRET }));

    expect(await createSecretReader({ client })(ARN)).toEqual({ apiKey: 'pk', apiSecret: SECRET });
  });

  it('reads Secrets Manager once within the cache age', async () => {
    const { client, mock } = mockedSecrets(JSON.stringify({ apiKey: 'pk', apiSecret: SECRET }));
    const read = createSecretReader({ client, maxAgeSeconds: 300 });

    await read(ARN);
    await read(ARN);

    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('reads Secrets Manager again with forceFetch and keeps the fresh value in the cache', async () => {
    const { client, mock } = mockedSecrets('{}');
    mock
      .on(GetSecretValueCommand, { SecretId: ARN })
      .resolvesOnce({ ARN, SecretString: JSON.stringify({ apiKey: 'pk_old', apiSecret: SECRET }) })
      .resolves({ ARN, SecretString: JSON.stringify({ apiKey: 'pk_new', apiSecret: SECRET }) });
    const read = createSecretReader({ client, maxAgeSeconds: 300 });

    const first = await read(ARN);
    const forced = await read(ARN, { forceFetch: true });
    const cached = await read(ARN);

    expect([first, forced, cached].map((value) => (value as { apiKey: string }).apiKey)).toEqual([
      'pk_old',
      'pk_new',
      'pk_new',
    ]);
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});

describe('createServiceFactory', () => {
  const registry = { acme: { secretArn: ARN, timeZone: 'UTC', monthly: false } };

  it('throws SecretError without the value for a secret that is not JSON', async () => {
    const { client } = mockedSecrets(`not json ${SECRET}`);
    const services = createServiceFactory({
      registry,
      readSecret: createSecretReader({ client }),
      settings: { baseUrl: 'http://127.0.0.1:1' },
    });

    const error = (await services('acme').catch((caught: unknown) => caught)) as Error;

    expect(error).toMatchObject({
      name: 'SecretError',
      message: 'secret of profile "acme": is not valid JSON',
    });
    expect(JSON.stringify(error) + String(error.cause)).not.toContain(SECRET);
  });

  it('throws SecretError naming the missing field for a secret without apiSecret', async () => {
    const { client } = mockedSecrets(JSON.stringify({ apiKey: 'pk' }));
    const services = createServiceFactory({
      registry,
      readSecret: createSecretReader({ client }),
      settings: { baseUrl: 'http://127.0.0.1:1' },
    });

    await expect(services('acme')).rejects.toThrow(/invalid or missing: apiSecret$/);
  });

  it('throws UnknownProfileError before reading any secret', async () => {
    const { client, mock } = mockedSecrets('{}');
    const services = createServiceFactory({
      registry,
      readSecret: createSecretReader({ client }),
      settings: { baseUrl: 'http://127.0.0.1:1' },
    });

    await expect(services('other')).rejects.toMatchObject({ name: 'UnknownProfileError' });
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('returns a client that signs again with the rotated secret when the cached one is refused', async () => {
    const { client, mock } = mockedSecrets('{}');
    mock
      .on(GetSecretValueCommand, { SecretId: ARN })
      .resolvesOnce({ ARN, SecretString: JSON.stringify({ apiKey: 'pk_old', apiSecret: SECRET }) })
      .resolves({ ARN, SecretString: JSON.stringify({ apiKey: 'pk_new', apiSecret: SECRET }) });
    const keys: string[] = [];
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      const key = new Headers(init?.headers).get('x-api-key') ?? '';
      keys.push(key);
      return key === 'pk_new'
        ? new Response(JSON.stringify({ defiProtocols: ['Aave V3'] }), { status: 200 })
        : new Response(JSON.stringify({ error: { code: 'invalid_api_key', message: 'unknown key' } }), {
            status: 401,
          });
    };
    const services = createServiceFactory({
      registry,
      readSecret: createSecretReader({ client, maxAgeSeconds: 300 }),
      settings: { baseUrl: 'http://127.0.0.1:1' },
      client: { fetch: fetch as typeof globalThis.fetch, logger: { warn: () => {}, debug: () => {} } },
    });

    const service = await services('acme');

    expect(await service.client.defiProtocols()).toEqual(['Aave V3']);
    expect(keys).toEqual(['pk_old', 'pk_new']);
  });
});
