/** Benchmark helper: runs s3rver (local S3) in its own process and reports its endpoint over IPC. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from '../lib/storage/index.ts';

const bucket = 'pbs-bench';
const directory = await mkdtemp(join(tmpdir(), 'pbs-bench-s3-'));
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
makeObjectWritesAtomic(server);
const { port } = await server.run();
process.send?.({ endpoint: `http://127.0.0.1:${port}`, bucket });
process.on('disconnect', () => {
  void server
    .close()
    .then(() => rm(directory, { recursive: true, force: true }))
    .then(() => process.exit(0));
});
