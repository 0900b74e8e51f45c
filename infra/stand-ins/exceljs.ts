/**
 * exceljs as the bundles of the functions that write no workbook see it (see `infra/bundling.ts`):
 * only the finish function writes workbooks, so the others leave the library (about 1 MB of code)
 * out and get this stand-in, which fails loudly, naming the reason, if any code path reaches it.
 */
const refuse = (): never => {
  throw new Error(
    'exceljs is bundled only into the finish function (infra/bundling.ts): this function writes no workbook',
  );
};

export default new Proxy({}, { get: refuse, construct: refuse, apply: refuse });
