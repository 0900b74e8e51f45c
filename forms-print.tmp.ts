import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseExportRequest, runExport } from './lib/export/index.ts';
import { startExportHarness } from './test/support/export.ts';
const h = await startExportHarness('demo');
const out = '/tmp/forms-print';
mkdirSync(out, { recursive: true });
const runs = { demo: {}, us: { reports: ['gains'], gains: { taxRules: 'us' } }, uk: { reports: ['gains'], gains: { taxRules: 'uk', currency: 'USD' } }, de: { reports: ['gains'], gains: { taxRules: 'de', currency: 'USD' } } };
for (const [name, opts] of Object.entries(runs)) {
  const r = await runExport(parseExportRequest({ profile: 'demo', period: '2025', ...opts }), h.deps());
  cpSync(join(h.outDir, r.prefix, 'demo_2025.xlsx'), join(out, `${name}.xlsx`));
}
execFileSync('soffice', [`-env:UserInstallation=${pathToFileURL(join(out, 'lo')).href}`, '--headless', '--convert-to', 'pdf', '--outdir', out, ...Object.keys(runs).map((n) => join(out, `${n}.xlsx`))]);
await h.close();
