/**
 * Splits a run's items into pages for the stage workers. A page never splits a shipment (the
 * items of one AWB), because regime, quota and duties are decided per shipment; a shipment
 * larger than a page gets a page of its own.
 */
export const itemsPerPage = 500;

export function planPages<T extends { awb: string; itemKey: string }>(items: readonly T[], size = itemsPerPage): T[][] {
  const byAwb = new Map<string, T[]>();
  for (const it of items) {
    const list = byAwb.get(it.awb);
    if (list) list.push(it);
    else byAwb.set(it.awb, [it]);
  }
  const awbs = [...byAwb.keys()].sort();
  const pages: T[][] = [];
  let page: T[] = [];
  for (const awb of awbs) {
    const group = byAwb.get(awb)!.sort((a, b) => (a.itemKey < b.itemKey ? -1 : a.itemKey > b.itemKey ? 1 : 0));
    if (page.length && page.length + group.length > size) {
      pages.push(page);
      page = [];
    }
    page.push(...group);
  }
  if (page.length) pages.push(page);
  return pages;
}
