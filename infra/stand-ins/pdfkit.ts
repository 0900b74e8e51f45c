/**
 * pdfkit as every function's bundle sees it (see `infra/bundling.ts`): the PDF tax pack needs the
 * DejaVu font files beside the code, which the bundles do not ship, so the workers write no pack
 * unless told (`taxPack` of `lib/workflow/workers.ts`, set by `serve` only) and no function
 * carries the library (about 2 MB with its font engine). This stand-in fails loudly, naming the
 * reason, if any path reaches it.
 */
const refuse = (): never => {
  throw new Error(
    'pdfkit is not bundled into the functions (infra/bundling.ts): the tax pack is written by the CLI and serve only',
  );
};

export default new Proxy(function PDFDocument() {}, { get: refuse, construct: refuse, apply: refuse });
