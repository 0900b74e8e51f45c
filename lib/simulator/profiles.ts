import type { HostileProfile } from './hostile.ts';
import type { SimulatedProfile } from './types.ts';

/**
 * The built-in demo portfolios. Their credentials are fixed, public and only valid against the
 * simulator: they are demo values, not secrets.
 */
export const DEFAULT_PROFILES: readonly Readonly<SimulatedProfile>[] = Object.freeze(
  [
    {
      name: 'demo',
      apiKey: 'pk_demo_7f3a9c2e51b84d06',
      apiSecret: 'sk_demo_3b8e1f0a9d7c4e52b6a1f8c0d9e2b7a4',
      profileGuid: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
      transactions: 3_000,
      story: true,
    },
    {
      name: 'acme',
      apiKey: 'pk_acme_c41d8e2f7a9b3065',
      apiSecret: 'sk_acme_9a2c7e4f1b8d3a6c0e5f2b9d4a7c1e8f',
      profileGuid: '0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d',
      transactions: 400,
    },
    {
      name: 'empty',
      apiKey: 'pk_empty_5e6f7a8b9c0d1e2f',
      apiSecret: 'sk_empty_1f2e3d4c5b6a79880f1e2d3c4b5a6978',
      profileGuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
      transactions: 0,
    },
  ].map((p) => Object.freeze(p)),
);

/**
 * Copies the default profiles with their own transaction counts, e.g. `{ demo: 100_000 }`. A
 * profile given a count serves generated random data (the benchmark's and the load tests'), not
 * the demo story, which is written for the demo's own count.
 */
export function profilesWithCounts(counts: Record<string, number>): SimulatedProfile[] {
  return DEFAULT_PROFILES.map(({ story, ...p }) =>
    counts[p.name] === undefined
      ? { ...p, ...(story === true ? { story } : {}) }
      : { ...p, transactions: counts[p.name] as number },
  );
}

/**
 * A portfolio of hostile data (formula text, control characters, 40,000-character strings, emoji,
 * bidi overrides, lone surrogates, 30-digit amounts, exponents, negative zero, hostile extra field
 * names), for the hostile-data tests. Not served unless passed in `profiles`, e.g.
 * `startSimulator({ profiles: [...DEFAULT_PROFILES, HOSTILE_PROFILE] })`.
 */
export const HOSTILE_PROFILE: Readonly<HostileProfile> = Object.freeze({
  name: 'hostile',
  apiKey: 'pk_hostile_0d1e2f3a4b5c6d7e',
  apiSecret: 'sk_hostile_8f7e6d5c4b3a29180f7e6d5c4b3a2918',
  profileGuid: 'e5d4c3b2-a190-4f8e-9d7c-6b5a49382716',
  transactions: 90,
  hostile: true,
});
