import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleAliases } from '../../infra/bundling.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import { FUNCTIONS } from '../../infra/stack.ts';
import ExcelStandIn from '../../infra/stand-ins/exceljs.ts';
import PdfStandIn from '../../infra/stand-ins/pdfkit.ts';

describe('bundleAliases', () => {
  it('gives exceljs to the finish function alone, a stand-in to every other; pdfkit to none', () => {
    const standIns = Object.fromEntries(
      Object.values(FUNCTIONS).map((spec) => [spec.entry, bundleAliases(spec.entry, PROJECT_ROOT)]),
    );
    const standIn = join(PROJECT_ROOT, 'infra/stand-ins/exceljs.ts');
    const pdfkit = join(PROJECT_ROOT, 'infra/stand-ins/pdfkit.ts');
    // exceljs's own modules the XLSX row writer loads get the stand-in too.
    const excel = {
      exceljs: standIn,
      'exceljs/lib/utils/utils.js': standIn,
      'exceljs/lib/utils/col-cache.js': standIn,
    };

    expect(standIns).toEqual({
      'functions/http-api.ts': { ...excel, pdfkit },
      'functions/export-plan.ts': { ...excel, pdfkit },
      'functions/export-fetch-shard.ts': { ...excel, pdfkit },
      'functions/export-finish.ts': { pdfkit },
      'functions/export-fail.ts': { ...excel, pdfkit },
      'functions/monthly-start.ts': { ...excel, pdfkit },
      'functions/rates-fetch.ts': { ...excel, pdfkit },
    });
  });

  it("has a stand-in that fails naming the reason if a function's code reaches it", () => {
    const reach = () => (ExcelStandIn as unknown as { stream: unknown }).stream;

    expect(reach).toThrow(/exceljs is bundled only into the finish function/);
    expect(() => new (PdfStandIn as unknown as new () => unknown)()).toThrow(
      /tax pack is written by the CLI and serve only/,
    );
  });
});
