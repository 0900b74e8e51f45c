import { parseExportRequest, runExport } from './lib/export/index.ts';
import { startExportHarness } from './test/support/export.ts';
const h = await startExportHarness('demo');
await runExport(parseExportRequest({ profile: 'demo', period: '2025', formats: ['xlsx'] }), h.deps());
await h.close();
