import { type ReactNode, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** Rows drawn beyond the visible ones, above and below. */
const OVERSCAN = 6;

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  itemKey: (item: T) => string | number;
  renderRow: (item: T) => ReactNode;
  label: string;
  testId?: string;
  /** Scrolls this item into view when it changes. */
  scrollToIndex?: number | null;
}

/**
 * A list that renders only the rows in view (fixed row height), so 20,000 units scroll smoothly. Rows
 * keep list semantics with their position in the whole list (aria-setsize / aria-posinset).
 */
export function VirtualList<T>({ items, rowHeight, itemKey, renderRow, label, testId, scrollToIndex }: VirtualListProps<T>) {
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);

  useLayoutEffect(() => {
    const element = viewport.current;
    if (!element) return;
    setHeight(element.clientHeight || 480);
    const observer = new ResizeObserver(() => setHeight(element.clientHeight || 480));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = viewport.current;
    if (!element || scrollToIndex === null || scrollToIndex === undefined || scrollToIndex < 0) return;
    const top = scrollToIndex * rowHeight;
    if (top < element.scrollTop || top + rowHeight > element.scrollTop + element.clientHeight) {
      element.scrollTop = Math.max(0, top - element.clientHeight / 2 + rowHeight / 2);
      setScrollTop(element.scrollTop);
    }
  }, [scrollToIndex, rowHeight]);

  // A shorter list (a new search) must not leave the view scrolled past its end.
  const maxTop = Math.max(0, items.length * rowHeight - height);
  const top = Math.min(scrollTop, maxTop);
  const start = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const end = Math.min(items.length, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  const rows = items.slice(start, end);

  return (
    <div ref={viewport} className="vlist" onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
      <div className="vlist-spacer" style={{ height: items.length * rowHeight }}>
        <ul className="vlist-rows" style={{ transform: `translateY(${start * rowHeight}px)` }} aria-label={label} data-testid={testId}>
          {rows.map((item, offset) => (
            <li key={itemKey(item)} style={{ height: rowHeight }} aria-setsize={items.length} aria-posinset={start + offset + 1}>
              {renderRow(item)}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
