import { afterEach } from 'vitest';
import { createPbsClient, type PbsClient } from '../../lib/pbs/client.ts';
import type { PbsClientConfig } from '../../lib/pbs/config.ts';
import { startSimulator } from '../../lib/simulator/index.ts';
import type { RunningSimulator, SimulatedProfile, SimulatorOptions } from '../../lib/simulator/types.ts';
import { fakeClock, recordingLogger } from './support.ts';

const running: RunningSimulator[] = [];

/** Closes every simulator a test started; call once per test file. */
export function closeSimulatorsAfterEach(): void {
  afterEach(async () => {
    await Promise.all(running.splice(0).map((sim) => sim.close()));
  });
}

export interface Harness {
  sim: RunningSimulator;
  /** The clock shared by the simulator and the clients; client sleeps move it forward. */
  clock: ReturnType<typeof fakeClock>;
  profile(name?: string): SimulatedProfile;
  /** A client of `profile` (default `acme`) on the shared clock, retries waiting no real time. */
  client(config?: Partial<PbsClientConfig> & { profileName?: string }): PbsClient;
  logger: ReturnType<typeof recordingLogger>;
}

/** Starts a simulator on a fake clock shared with the clients it hands out. */
export async function startHarness(options: SimulatorOptions = {}): Promise<Harness> {
  const clock = fakeClock(Date.now());
  const sim = await startSimulator({ now: clock.now, ...options });
  running.push(sim);
  const logger = recordingLogger();
  const profile = (name = 'acme'): SimulatedProfile => {
    const found = sim.profiles.find((p) => p.name === name);
    if (!found) throw new Error(`no simulated profile ${name}`);
    return found;
  };
  return {
    sim,
    clock,
    logger,
    profile,
    client: ({ profileName, ...config } = {}) => {
      const p = profile(profileName);
      return createPbsClient({
        baseUrl: sim.url,
        credentials: { apiKey: p.apiKey, apiSecret: p.apiSecret },
        shape: options.shape,
        now: clock.now,
        sleep: clock.sleep,
        random: () => 0.5,
        logger,
        requestsPerSecond: 20,
        ...config,
      });
    },
  };
}

/** Starts a simulator on the real clock (for rate tests that must see real time pass). */
export async function startRealTimeSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator(options);
  running.push(sim);
  return sim;
}

export async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export const idsOf = (items: readonly Record<string, unknown>[], field = 'id'): unknown[] =>
  items.map((item) => item[field]);
