/**
 * archiver (the zip library) as the bundles of the functions that write no zip see it (see
 * `infra/bundling.ts`): only the finish function (workbooks) and the HTTP API (a set's archive)
 * write zips, so the others leave the library out and get this stand-in, which fails loudly,
 * naming the reason, if any code path reaches it.
 */
const refuse = (): never => {
  throw new Error(
    'archiver is bundled only into the finish function and the HTTP API (infra/bundling.ts): this function writes no zip',
  );
};

export default new Proxy(function archiver() {}, { get: refuse, construct: refuse, apply: refuse });
