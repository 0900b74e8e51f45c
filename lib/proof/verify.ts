/**
 * `verify` (README: Proof): every published file against its manifest, the signature against the
 * public key, and the chain from each set back to the first, said in words.
 */
import { type ChainedManifest, parseManifest, sha256 } from './chain.ts';
import type { Finding } from './finding.ts';
import { instantOf } from './instants.ts';
import { publicKeyFingerprint, SIGNATURE_NAME, type SignatureReference, signatureHolds } from './signing.ts';
import type { SetStore } from './store.ts';
import { type ChainPrevious, checkOpeningBalances } from './verify-balances.ts';

export type { Finding } from './finding.ts';

/** What was found of one set. */
export interface SetVerdict {
  prefix: string;
  holds: boolean;
  findings: Finding[];
}

/** What `verifySets` found. */
export interface Verdict {
  /** True only when every check of every set holds. */
  holds: boolean;
  sets: SetVerdict[];
}

/** How `verifySets` checks signatures. */
export interface VerifyOptions {
  /**
   * A public key the verifier holds (PEM). Given: every set must be signed by it. Absent: a
   * signed set is checked against the key published beside the sets, and an unsigned one is
   * said to be unsigned.
   */
  publicKeyPem?: string;
}

interface SignedManifest extends ChainedManifest {
  files?: { name: string; bytes: number; sha256: string }[];
  signature?: SignatureReference;
}

const MANIFEST = 'manifest.json';

/**
 * Verifies the sets whose folders are `prefixes` (relative to the store's root), and every set
 * their chains lead back to, once each, in that order.
 */
export async function verifySets(
  store: SetStore,
  prefixes: readonly string[],
  options: VerifyOptions = {},
): Promise<Verdict> {
  const queue = [...prefixes];
  const seen = new Set<string>();
  const sets: SetVerdict[] = [];
  while (queue.length > 0) {
    const prefix = queue.shift() as string;
    if (seen.has(prefix)) continue;
    seen.add(prefix);
    const { verdict, previous } = await verifySet(store, prefix, options);
    sets.push(verdict);
    if (previous !== undefined) queue.push(previous);
  }
  return { holds: sets.every((set) => set.holds), sets };
}

/** The folders of every set stored under `prefix` (those with a manifest). */
export async function setsUnder(store: SetStore, prefix: string): Promise<string[]> {
  return (await store.list(prefix))
    .filter((key) => key === MANIFEST || key.endsWith(`/${MANIFEST}`))
    .map((key) => key.slice(0, Math.max(0, key.length - MANIFEST.length - 1)));
}

/** One set: its files, its signature and its link to the set before. */
async function verifySet(
  store: SetStore,
  prefix: string,
  options: VerifyOptions,
): Promise<{ verdict: SetVerdict; previous?: string }> {
  const at = (name: string) => (prefix === '' ? name : `${prefix}/${name}`);
  const findings: Finding[] = [];
  const bytes = await store.read(at(MANIFEST));
  const manifest = bytes === null ? null : (parseManifest(bytes) as SignedManifest | null);
  if (bytes === null || manifest === null) {
    const text = `${store.location(at(MANIFEST))} is ${bytes === null ? 'missing' : 'not a manifest'}: the set cannot be verified`;
    return { verdict: { prefix, holds: false, findings: [{ holds: false, text }] } };
  }
  findings.push(...(await checkFiles(store, prefix, manifest)));
  findings.push(await checkSignature(store, at, bytes, manifest, options));
  const link = await checkLink(store, manifest);
  findings.push(link.finding, ...(await checkOpeningBalances(store, manifest, link.chain ?? null)));
  const verdict = { prefix, holds: findings.every((finding) => finding.holds), findings };
  return link.previous === undefined ? { verdict } : { verdict, previous: link.previous };
}

/** Each listed file read back against its size and SHA-256; files the manifest does not list. */
async function checkFiles(store: SetStore, prefix: string, manifest: SignedManifest): Promise<Finding[]> {
  const at = (name: string) => (prefix === '' ? name : `${prefix}/${name}`);
  const findings: Finding[] = [];
  const listed = manifest.files ?? [];
  let intact = 0;
  for (const file of listed) {
    const read = await store.digest(at(file.name));
    if (read === null) findings.push({ holds: false, text: `${file.name}: missing (the manifest lists it)` });
    else if (read.sha256 !== file.sha256 || read.bytes !== file.bytes) {
      findings.push({
        holds: false,
        text: `${file.name}: changed since it was published (${read.bytes} bytes, SHA-256 ${read.sha256}; the manifest says ${file.bytes} bytes, ${file.sha256})`,
      });
    } else intact += 1;
  }
  const known = new Set([MANIFEST, SIGNATURE_NAME, ...listed.map((file) => file.name)]);
  const under = prefix === '' ? '' : `${prefix}/`;
  for (const key of await store.list(under)) {
    const name = key.slice(under.length);
    // A set's folder holds its files only; deeper folders are other sets (a root given as a set).
    if (!name.includes('/') && !known.has(name)) {
      findings.push({ holds: false, text: `${name}: in the set's folder but not in its manifest` });
    }
  }
  findings.unshift({
    holds: intact === listed.length,
    text: `${intact} of ${listed.length} files as published (size and SHA-256)`,
  });
  return findings;
}

/** The manifest's signature, against the key the verifier holds or the published one. */
async function checkSignature(
  store: SetStore,
  at: (name: string) => string,
  manifestBytes: Buffer,
  manifest: SignedManifest,
  options: VerifyOptions,
): Promise<Finding> {
  const reference = manifest.signature;
  if (reference === undefined) {
    return options.publicKeyPem === undefined
      ? { holds: true, text: 'not signed (the set was made without a signing key)' }
      : { holds: false, text: 'not signed, and a public key was given: a signature was required' };
  }
  const signature = await store.read(at(reference.file));
  if (signature === null)
    return { holds: false, text: `${reference.file}: missing (the manifest says it is signed)` };
  const published = options.publicKeyPem === undefined ? await store.read(reference.publicKey) : null;
  const keyPem = options.publicKeyPem ?? published?.toString('utf8');
  if (keyPem === undefined) {
    return {
      holds: false,
      text: `the public key ${reference.publicKey} is missing: give --public-key to check the signature`,
    };
  }
  const fingerprint = safeFingerprint(keyPem);
  if (fingerprint !== reference.publicKeySha256) {
    const whose =
      options.publicKeyPem === undefined ? `the published ${reference.publicKey}` : 'the public key given';
    return {
      holds: false,
      text: `signed with key ${reference.publicKeySha256}, but ${whose} is ${fingerprint ?? 'not a public key'}`,
    };
  }
  if (!signatureHolds(manifestBytes, signature, keyPem)) {
    return {
      holds: false,
      text: `${reference.file} does not sign this manifest.json (${reference.algorithm})`,
    };
  }
  const source =
    options.publicKeyPem === undefined
      ? `the key published at ${reference.publicKey}`
      : 'the public key given';
  return {
    holds: true,
    text: `signature holds (${reference.algorithm}, ${reference.signer}) with ${source}`,
  };
}

/**
 * The link to the set before: there, unchanged, and ending where this one begins. `chain`: that
 * set as the balance check reads it (its manifest only when the link holds).
 */
async function checkLink(
  store: SetStore,
  manifest: SignedManifest,
): Promise<{ finding: Finding; chain?: ChainPrevious; previous?: string }> {
  const previous = manifest.previous;
  if (previous === undefined)
    return { finding: { holds: true, text: 'no chain recorded (made before sets were chained)' } };
  if (previous === null)
    return {
      finding: {
        holds: true,
        text: 'first set of its chain (no earlier set of the profile ends where it begins)',
      },
    };
  const name = `${previous.prefix}/${MANIFEST}`;
  const bytes = await store.read(name);
  const where = `the previous set ${previous.prefix} (${previous.period.label})`;
  const chain = { prefix: previous.prefix, where };
  if (bytes === null) return { finding: { holds: false, text: `chain broken: ${where} is missing` }, chain };
  if (sha256(bytes) !== previous.manifestSha256) {
    return {
      finding: {
        holds: false,
        text: `chain broken: the manifest of ${where} changed since this set named it`,
      },
      chain,
      previous: previous.prefix,
    };
  }
  if (Date.parse(previous.period.end) !== Date.parse(manifest.period.start)) {
    return {
      finding: {
        holds: false,
        text: `chain broken: ${where} ends at ${instantOf(manifest, previous.period.end, 'end')}, not where this set begins (${instantOf(manifest, manifest.period.start, 'start')})`,
      },
      chain,
      previous: previous.prefix,
    };
  }
  return {
    finding: { holds: true, text: `continues ${where}, its manifest unchanged` },
    chain: { ...chain, manifest: JSON.parse(bytes.toString('utf8')) },
    previous: previous.prefix,
  };
}

function safeFingerprint(pem: string): string | null {
  try {
    return publicKeyFingerprint(pem);
  } catch {
    return null;
  }
}
