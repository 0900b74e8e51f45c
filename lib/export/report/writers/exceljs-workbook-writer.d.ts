/** exceljs's streaming workbook writer, by its own module (exceljs ships no types for it). */
declare module 'exceljs/lib/stream/xlsx/workbook-writer.js' {
  import type ExcelJS from 'exceljs';

  const WorkbookWriter: typeof ExcelJS.stream.xlsx.WorkbookWriter;
  export default WorkbookWriter;
}

/** exceljs's XML helpers, by their own module. */
declare module 'exceljs/lib/utils/utils.js' {
  const utils: { xmlEncode(text: string): string };
  export default utils;
}

/** exceljs's column-letter cache, by its own module. */
declare module 'exceljs/lib/utils/col-cache.js' {
  const colCache: { n2l(column: number): string };
  export default colCache;
}
