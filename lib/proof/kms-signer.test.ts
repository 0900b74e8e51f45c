/**
 * The KMS signer, against a stand-in for KMS (no local KMS server exists) that does what KMS's
 * `Sign` does with `MessageType: DIGEST`: OpenSSL's `pkeyutl -sign` signs the 32 bytes it is given
 * as they are. OpenSSL's `dgst -sha256 -verify` must then accept the signature over the manifest.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kmsSigner } from './kms-signer.ts';
import { publicKeyFingerprint, signatureHolds } from './signing.ts';

const run = promisify(execFile);
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/0f2c7e1a-3b4d-4c5e-8f90-1a2b3c4d5e6f';

let dir: string;
let keyFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-kms-'));
  keyFile = join(dir, 'key.pem');
  await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** KMS as the signer sees it: the key's DER public key, and digests signed as given. */
function openSslKms(digests: Uint8Array[]) {
  return {
    async getPublicKey(keyId: string) {
      expect(keyId).toBe(KEY_ARN);
      return (
        await run('openssl', ['ec', '-in', keyFile, '-pubout', '-outform', 'DER'], { encoding: 'buffer' })
      ).stdout as unknown as Uint8Array;
    },
    async signDigest(keyId: string, digest: Uint8Array) {
      expect(keyId).toBe(KEY_ARN);
      digests.push(digest);
      const input = join(dir, 'digest.bin');
      await writeFile(input, digest);
      const output = join(dir, 'signature.der');
      await run('openssl', ['pkeyutl', '-sign', '-inkey', keyFile, '-in', input, '-out', output]);
      return readFile(output);
    },
  };
}

describe('kmsSigner', () => {
  it('sends KMS the SHA-256 digest of the manifest, and its signature verifies with OpenSSL', async () => {
    const digests: Uint8Array[] = [];
    const signer = await kmsSigner(openSslKms(digests), KEY_ARN);
    const manifest = Buffer.from('{\n  "format": "pbs-export/manifest@1"\n}\n');
    const signature = await signer.sign(manifest);
    expect(digests).toHaveLength(1);
    const digest = createHash('sha256').update(manifest).digest('hex');
    expect(Buffer.from(digests[0] as Uint8Array).toString('hex')).toBe(digest);
    await writeFile(join(dir, 'manifest.json'), manifest);
    await writeFile(join(dir, 'manifest.sig'), signature);
    await writeFile(join(dir, 'public.pem'), signer.publicKeyPem);
    const checked = await run('openssl', [
      'dgst',
      '-sha256',
      '-verify',
      join(dir, 'public.pem'),
      '-signature',
      join(dir, 'manifest.sig'),
      join(dir, 'manifest.json'),
    ]);
    expect(checked.stdout.trim()).toBe('Verified OK');
    expect(signatureHolds(manifest, signature, signer.publicKeyPem)).toBe(true);
    expect(signer.signer).toBe(KEY_ARN);
  });

  it('publishes the public key OpenSSL derives from the private key, by its SPKI fingerprint', async () => {
    const signer = await kmsSigner(openSslKms([]), KEY_ARN);
    const derived = (await run('openssl', ['ec', '-in', keyFile, '-pubout'])).stdout;
    expect(signer.publicKeyPem).toBe(derived);
    const der = (
      await run('openssl', ['ec', '-in', keyFile, '-pubout', '-outform', 'DER'], { encoding: 'buffer' })
    ).stdout as unknown as Buffer;
    expect(publicKeyFingerprint(signer.publicKeyPem)).toBe(createHash('sha256').update(der).digest('hex'));
  });

  it('names the key when KMS refuses to sign, and keeps the cause', async () => {
    const refusing = {
      ...openSslKms([]),
      signDigest: async () => Promise.reject(new Error('AccessDeniedException')),
    };
    const signer = await kmsSigner(refusing, KEY_ARN);
    await expect(signer.sign(Buffer.from('{}'))).rejects.toMatchObject({
      message: `could not sign the manifest: KMS refused to sign with ${KEY_ARN}`,
      cause: { message: 'AccessDeniedException' },
    });
  });
});
