/** Benchmark helper: runs the simulator in its own process and reports its URL over IPC. */
import { profilesWithCounts, startSimulator } from '../lib/simulator/index.ts';

const { transactions, latencyMs, rateLimitPerSecond } = JSON.parse(process.argv[2] ?? '{}') as {
  transactions: number;
  latencyMs: number;
  /** The service's limit per key (20) for the rate-limited run; default: no limit to speak of. */
  rateLimitPerSecond?: number;
};
const simulator = await startSimulator({
  profiles: profilesWithCounts({ demo: transactions }),
  rateLimitPerSecond: rateLimitPerSecond ?? 1_000_000,
  requestLogLimit: 1_000,
  faults: { latencyMs },
});
const demo = simulator.profiles.find((p) => p.name === 'demo');
process.send?.({ url: simulator.url, profile: demo });
process.on('disconnect', () => {
  void simulator.close().then(() => process.exit(0));
});
