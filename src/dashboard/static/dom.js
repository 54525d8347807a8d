// The one way the dashboard puts data on the page: elements built with textContent, never HTML
// parsed from a string, so a ticker or a reason holding markup shows as text.

/**
 * An element with attributes (strings, or `on<event>` listeners) and children (nodes or text).
 * @example el('td', { class: 'num' }, execution.amountIn)
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value)
    else node.setAttribute(name, value === true ? '' : String(value))
  }
  append(node, children)
  return node
}

/** Appends children: nodes as they are, anything else as text. */
export function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    node.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return node
}

/** Removes every child of `node`. */
export function clear(node) {
  while (node.firstChild) node.firstChild.remove()
  return node
}

/** A table in a horizontally scrolling box; each row is a list of cells (text, or nodes). */
export function table(headers, rows, attributes = {}) {
  return el(
    'div',
    { class: 'scroll' },
    el(
      'table',
      attributes,
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          headers.map((header) => el('th', { scope: 'col' }, header)),
        ),
      ),
      el(
        'tbody',
        {},
        rows.length === 0
          ? el('tr', {}, el('td', { colspan: headers.length, class: 'muted' }, 'none'))
          : rows,
      ),
    ),
  )
}

/** A row of cells; a cell is text, a node, or `{ text, class, title }`. */
export function row(cells, attributes = {}) {
  return el(
    'tr',
    attributes,
    cells.map((cell) =>
      cell !== null && typeof cell === 'object' && !(cell instanceof Node)
        ? el('td', { class: cell.class, title: cell.title }, cell.text)
        : el('td', {}, cell),
    ),
  )
}

/**
 * A long identifier (an address, a hash) cut to its start with an ellipsis, so a table fits its
 * card: the tooltip shows it whole, and a copy takes it whole (the text is all there).
 * @example el('td', {}, clipped(wallet.address))
 */
export function clipped(text) {
  return el('span', { class: 'clipped', title: text }, text)
}

/** A card: a titled box of the page grid. */
export function card(title, attributes = {}, ...children) {
  return el('section', { class: 'card', ...attributes }, el('h2', {}, title), ...children)
}

/** A time as the operator reads it (local time, seconds), or – for none. */
export function timeText(value) {
  if (value === null || value === undefined) return '–'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString()
}
