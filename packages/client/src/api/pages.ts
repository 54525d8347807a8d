/** One page of a paginated list, as the iterators read it. */
export type ListPage<Item> = {
  items: readonly Item[]
  /** Every record matching the filter, on all pages. */
  total: number
}

/**
 * Walks a paginated list from page 1, yielding each item once: it stops at an empty page or when
 * as many items as `total` (re-read on every page) have been fetched. An item seen on an earlier
 * page (a list that shifted because new records arrived in the meantime) is not yielded again.
 *
 * @example
 * for await (const order of walkPages({ fetchPage: (page) => fetchOrders(page), keyOf: (order) => order.id }))
 *   console.log(order.id)
 */
export async function* walkPages<Item>(parameters: {
  fetchPage: (page: number) => Promise<ListPage<Item>>
  keyOf: (item: Item) => string
  signal?: AbortSignal | undefined
}): AsyncGenerator<Item, void, undefined> {
  const { fetchPage, keyOf, signal } = parameters
  const seen = new Set<string>()
  let fetched = 0
  for (let page = 1; ; page += 1) {
    signal?.throwIfAborted()
    const { items, total } = await fetchPage(page)
    fetched += items.length
    for (const item of items) {
      const key = keyOf(item)
      if (seen.has(key)) continue
      seen.add(key)
      yield item
    }
    if (items.length === 0 || fetched >= total) return
  }
}
