/** Benchmark helper: runs the simulator in its own process and reports its URL over IPC. */
import { profilesWithCounts, startSimulator } from '../lib/simulator/index.ts';

const { transactions, latencyMs } = JSON.parse(process.argv[2] ?? '{}') as {
  transactions: number;
  latencyMs: number;
};
const simulator = await startSimulator({
  profiles: profilesWithCounts({ demo: transactions }),
  rateLimitPerSecond: 1_000_000,
  requestLogLimit: 1_000,
  faults: { latencyMs },
});
const demo = simulator.profiles.find((p) => p.name === 'demo');
process.send?.({ url: simulator.url, profile: demo });
process.on('disconnect', () => {
  void simulator.close().then(() => process.exit(0));
});
