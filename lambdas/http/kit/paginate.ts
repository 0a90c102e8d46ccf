/** One page of a list and the `meta` the spec's paginated answers carry. */
export function paginate<T>(items: T[], page: number, perPage: number) {
  return {
    page: items.slice((page - 1) * perPage, page * perPage),
    meta: { current_page: page, last_page: Math.max(1, Math.ceil(items.length / perPage)), per_page: perPage, total: items.length },
  };
}
