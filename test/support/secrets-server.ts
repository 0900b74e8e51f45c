/**
 * Secrets Manager on loopback, for a process aws-sdk-client-mock cannot reach (a bundled function
 * run in a child process, pointed here with `AWS_ENDPOINT_URL_SECRETS_MANAGER`). It answers
 * `GetSecretValue` (the only call the project makes) in the service's JSON protocol, and records
 * the ids asked for.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running stand-in: its URL, the secret ids asked for, and its stop. */
export interface SecretsServer {
  url: string;
  asked: string[];
  close(): Promise<void>;
}

/** Starts the stand-in over `secrets` (secret id → its value, as JSON). */
export async function startSecretsServer(secrets: Record<string, unknown>): Promise<SecretsServer> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        answer(400, { __type: 'InvalidRequestException', message: 'only GetSecretValue is served here' });
        return;
      }
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
      asked.push(SecretId);
      if (!Object.hasOwn(secrets, SecretId)) {
        answer(400, {
          __type: 'ResourceNotFoundException',
          message: 'Secrets Manager can not find the secret',
        });
        return;
      }
      answer(200, {
        ARN: SecretId,
        Name: SecretId,
        VersionId: 'v1',
        SecretString: JSON.stringify(secrets[SecretId]),
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
