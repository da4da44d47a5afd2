// The table is a grid of ARIA roles rather than <table> elements: the virtualiser places rows absolutely, which table
// rows cannot be, and the roles give assistive technology the same table. Rows are not focus stops themselves; their
// links, fields and checkboxes are, and the header buttons sort.
// biome-ignore-all lint/a11y/useSemanticElements: see above
// biome-ignore-all lint/a11y/useFocusableInteractive: see above
import {
  columnFilteringFeature,
  columnVisibilityFeature,
  createFilteredRowModel,
  createSortedRowModel,
  globalFilteringFeature,
  type Row as TableRow,
  type RowSelectionState,
  rowSelectionFeature,
  rowSortingFeature,
  type SortingState,
  tableFeatures,
  useTable,
  type ColumnVisibilityState,
  type RowData,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type CSSProperties, memo, type ReactNode, useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { TableViewState } from '../lib/table-view';
import { AppDialog } from './Dialogs';
import { CheckboxField } from './Form';
import './data-table.css';

/** One column of a `DataTable`: how a row shows in it, and whether it sorts, filters and may be hidden. */
export interface DataColumn<Row extends RowData> {
  id: string;
  header: string;
  cell: (row: Row) => ReactNode;
  /** The value the column sorts by; a column without one does not sort. */
  sortValue?: (row: Row) => string | number | null;
  /** The text the table's filter looks for in this column; a column without one is not searched. */
  searchText?: (row: Row) => string;
  /** Numbers line up on the right. */
  align?: 'end';
  /** The cell that names the row for assistive technology (at most one column). */
  rowHeader?: boolean;
  /** Narrowest width in rem (default 8); wider columns share the rest of the row. */
  minRem?: number;
  /** False keeps the column out of the column choice (always shown). */
  canHide?: boolean;
  /** The header is read out but not shown (a column of row actions). */
  headerHidden?: boolean;
}

export interface DataTableSelection<Row extends RowData> {
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  /** The accessible name of a row's checkbox ("Select Volvo V60"). */
  rowLabel: (row: Row) => string;
}

export interface DataTableProps<Row extends RowData> {
  /** The table's accessible name. */
  label: string;
  rows: readonly Row[];
  columns: readonly DataColumn<Row>[];
  rowId: (row: Row) => string;
  /** Sorting and hidden columns, kept per user (`useTableView`). */
  view: TableViewState;
  /** The rows come sorted by the server after `view.sorting`; the table shows them in their order. */
  manualSorting?: boolean;
  /** Text to look for in the searchable columns (the screen owns its search field). */
  filter?: string;
  selection?: DataTableSelection<Row>;
  /** Extra attributes of a row (test id, class). */
  rowProps?: (row: Row) => { 'data-testid'?: string; className?: string };
  /** Rows in groups, each under a heading row (a day of a report); the groups keep the rows' order. */
  groups?: { key: (row: Row) => string; header: (key: string, rows: Row[]) => ReactNode };
  /** Shown instead of rows when there are none. */
  empty?: ReactNode;
  /** A last row across the whole table (period totals), outside sorting; it stays in view at the bottom. */
  footer?: ReactNode;
  /** A line above the table saying how many rows are shown (after the filter), read out when it changes. */
  count?: { text: (shown: number) => string; testId?: string; className?: string };
  /** The height a table row is taken to have until it is drawn (px); near the real one, fewer rows are drawn twice. */
  rowHeight?: number;
  /**
   * Opens on the last rows: each new key (a period shown) scrolls the table to its end in one step and brings that end
   * into the window, unless the user acts first (pointer, key, wheel, touch). A table that opens on its end draws only
   * its last rows, never its first ones.
   */
  openAtEnd?: string | null;
  testId?: string;
  className?: string;
}

/** Rows narrower than this are shown as cards (a phone held upright), so nothing scrolls sideways. */
const CARD_QUERY = '(max-width: 640px)';
const SELECT_TRACK = '2.75rem';
const DEFAULT_ROW_HEIGHT = 48;
const CARD_HEIGHT = 160;
const DEFAULT_MIN_REM = 8;

function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (notify: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', notify);
      return () => list.removeEventListener('change', notify);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}

const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  columnFilteringFeature,
  globalFilteringFeature,
  filteredRowModel: createFilteredRowModel(),
  columnVisibilityFeature,
  rowSelectionFeature,
});
type Features = typeof features;

type Item<Row extends RowData> = { kind: 'group'; key: string; rows: Row[] } | { kind: 'row'; row: TableRow<Features, Row> };

/** The sort arrow, the same in a header and in the card sort control. */
function sortArrow(direction: false | 'asc' | 'desc'): string {
  return direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : '';
}

/**
 * The app's data table (TanStack Table, rows virtualised with TanStack Virtual): sorting by a header, a text filter,
 * columns chosen per user, rows selected for bulk actions (Shift selects a range), a header that stays in view, and
 * on a phone each row as a card instead of a table that scrolls sideways. Keyboard: headers are buttons, rows hold
 * their own links, fields and checkboxes in reading order.
 */
export function DataTable<Row extends RowData>(props: DataTableProps<Row>) {
  const { label, rows, columns, rowId, view, manualSorting = false, filter = '', selection, rowProps, groups, empty, footer, count, rowHeight = DEFAULT_ROW_HEIGHT, openAtEnd = null, testId, className } = props;
  const { t } = useTranslation();
  const asCards = useMediaQuery(CARD_QUERY);
  const scrollRef = useRef<HTMLDivElement>(null);

  const columnDefs = useMemo(
    () =>
      columns.map((column) => ({
        id: column.id,
        accessorFn: (row: Row) => column.sortValue?.(row) ?? null,
        enableSorting: column.sortValue !== undefined,
        enableGlobalFilter: column.searchText !== undefined,
        enableHiding: column.canHide !== false,
        sortUndefined: 'last' as const,
        // A first press sorts ascending whatever the values, as a header reads.
        sortDescFirst: false,
      })),
    [columns],
  );
  const searchTexts = useMemo(() => new Map(columns.map((column) => [column.id, column.searchText])), [columns]);
  const globalFilterFn = useCallback(
    (row: TableRow<Features, Row>, columnId: string, value: string) =>
      (searchTexts.get(columnId)?.(row.original) ?? '').toLocaleLowerCase().includes(value.toLocaleLowerCase()),
    [searchTexts],
  );
  const sorting: SortingState = view.sorting;
  const columnVisibility = useMemo<ColumnVisibilityState>(() => Object.fromEntries(view.hidden.map((id) => [id, false])), [view.hidden]);
  const rowSelection = useMemo<RowSelectionState>(
    () => Object.fromEntries([...(selection?.selected ?? [])].map((id) => [id, true])),
    [selection?.selected],
  );

  const table = useTable({
    features,
    columns: columnDefs,
    data: rows as Row[],
    getRowId: (row: Row) => rowId(row),
    state: { sorting, columnVisibility, rowSelection, globalFilter: filter.trim() },
    onSortingChange: (updater) => view.setSorting(typeof updater === 'function' ? updater(sorting) : updater),
    onColumnVisibilityChange: (updater) => {
      const next = typeof updater === 'function' ? updater(columnVisibility) : updater;
      view.setHidden(Object.keys(next).filter((id) => next[id] === false));
    },
    onRowSelectionChange: (updater) => {
      const next = typeof updater === 'function' ? updater(rowSelection) : updater;
      selection?.onChange(new Set(Object.keys(next).filter((id) => next[id])));
    },
    enableRowSelection: selection !== undefined,
    manualSorting,
    enableMultiSort: false,
    enableSortingRemoval: false,
    globalFilterFn,
    getColumnCanGlobalFilter: (column) => searchTexts.get(column.id) !== undefined,
  });

  // Kept while the columns are, so that a row's cells are not drawn again when only the table's scroll changes.
  const visible = useMemo(() => columns.filter((column) => !view.hidden.includes(column.id)), [columns, view.hidden]);
  const tableRows = table.getRowModel().rows;
  const items = useMemo<Item<Row>[]>(() => {
    if (!groups) return tableRows.map((row) => ({ kind: 'row', row }));
    const out: Item<Row>[] = [];
    let current = null as { kind: 'group'; key: string; rows: Row[] } | null;
    for (const row of tableRows) {
      const key = groups.key(row.original);
      if (current === null || current.key !== key) {
        current = { kind: 'group', key, rows: [] };
        out.push(current);
      }
      current.rows.push(row.original);
      out.push({ kind: 'row', row });
    }
    return out;
  }, [tableRows, groups]);

  const estimate = asCards ? CARD_HEIGHT : rowHeight;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimate,
    // Until the box is measured it is taken to be as tall as the window (it is not taller): the first render then draws
    // every row that may show, and the measurement takes some away rather than adding rows in a scroll event.
    initialRect: { width: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight },
    // A table that opens on its end starts there: its first render draws the last rows only.
    initialOffset: () => (openAtEnd === null ? 0 : Math.max(0, items.length * estimate - (typeof window === 'undefined' ? 0 : window.innerHeight))),
    getItemKey: (index) => {
      const item = items[index]!;
      return item.kind === 'row' ? `r${item.row.id}` : `g${item.key}`;
    },
    overscan: 8,
  });

  // Opening on the end: one scroll of the box (the virtualiser corrects it as the rows are measured), then the box into
  // the window. Before the first paint, so the first rows are never drawn; the user's first act ends it.
  const openedAt = useRef<string | null>(null);
  const hasRows = items.length > 0;
  useLayoutEffect(() => {
    const box = scrollRef.current;
    if (openAtEnd === null || openAtEnd === openedAt.current || !hasRows || !box) return;
    openedAt.current = openAtEnd;
    virtualizer.scrollToEnd();
    const frame = requestAnimationFrame(() => box.scrollIntoView({ block: 'nearest' }));
    const events = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;
    const release = () => {
      cancelAnimationFrame(frame);
      for (const event of events) window.removeEventListener(event, stop, { capture: true });
    };
    function stop() {
      virtualizer.cancelScroll();
      release();
    }
    for (const event of events) window.addEventListener(event, stop, { capture: true });
    return release;
  }, [openAtEnd, hasRows, virtualizer]);

  // A column is never narrower than the longest word of its header (headers wrap between words; about 0.6 rem a bold
  // letter, plus padding and the sort arrow).
  const widthOf = (column: DataColumn<Row>) =>
    column.headerHidden
      ? (column.minRem ?? DEFAULT_MIN_REM)
      : Math.max(column.minRem ?? DEFAULT_MIN_REM, Math.ceil(Math.max(...column.header.split(/\s+/).map((word) => word.length)) * 0.6 + 2.5));
  const tracks = [selection ? SELECT_TRACK : null, ...visible.map((column) => `minmax(${widthOf(column)}rem, ${widthOf(column)}fr)`)].filter(Boolean).join(' ');
  const minWidth = `${visible.reduce((sum, column) => sum + widthOf(column), selection ? 2.75 : 0)}rem`;
  const gridStyle = { '--data-table-columns': tracks, minWidth } as CSSProperties;
  const rowCount = items.length + 1 + (footer ? 1 : 0);

  const selectAll = selection && (
    <input
      type="checkbox"
      className="data-table-check"
      aria-label={t('table.selectAll')}
      checked={table.getIsAllRowsSelected()}
      ref={(element) => {
        if (element) element.indeterminate = table.getIsSomeRowsSelected();
      }}
      onChange={table.getToggleAllRowsSelectedHandler()}
      disabled={tableRows.length === 0}
    />
  );
  function renderItem(item: Item<Row>, index: number, start: number) {
    const style = { transform: `translateY(${start}px)` };
    if (item.kind === 'group') {
      const content = groups!.header(item.key, item.rows);
      return asCards ? (
        <div key={`g${item.key}`} role="listitem" className="data-table-group" data-index={index} ref={virtualizer.measureElement} style={style}>
          {content}
        </div>
      ) : (
        <div key={`g${item.key}`} role="row" className="data-table-group" data-index={index} ref={virtualizer.measureElement} style={style} aria-rowindex={index + 2}>
          <div role="cell" className="data-table-group-cell">
            {content}
          </div>
        </div>
      );
    }
    const { row } = item;
    const extra = rowProps?.(row.original);
    const isSelected = row.getIsSelected();
    const rowClass = ['data-table-row', asCards ? 'data-table-card' : null, isSelected ? 'is-selected' : null, extra?.className].filter(Boolean).join(' ');
    const cells = <RowCells row={row} columns={visible} asCards={asCards} selected={isSelected} rowLabel={selection?.rowLabel} />;
    return asCards ? (
      <div key={row.id} role="listitem" className={rowClass} data-testid={extra?.['data-testid']} data-index={index} ref={virtualizer.measureElement} style={style}>
        {cells}
      </div>
    ) : (
      <div key={row.id} role="row" className={rowClass} data-testid={extra?.['data-testid']} data-index={index} ref={virtualizer.measureElement} style={style} aria-rowindex={index + 2} aria-selected={selection ? isSelected : undefined}>
        {cells}
      </div>
    );
  }

  const sortable = columns.filter((column) => column.sortValue !== undefined);
  const active = sorting[0];

  return (
    <div className={['data-table', asCards ? 'data-table--cards' : null, className].filter(Boolean).join(' ')} data-testid={testId}>
      {count && (
        <p className={count.className} aria-live="polite" data-testid={count.testId}>
          {count.text(tableRows.length)}
        </p>
      )}
      {asCards && (sortable.length > 0 || selection) && (
        <div className="data-table-card-tools">
          {selection && (
            // biome-ignore lint/a11y/noLabelWithoutControl: the checkbox is inside, built above
            <label className="data-table-card-all">
              {selectAll}
              {t('table.selectAll')}
            </label>
          )}
          {sortable.length > 0 && (
            <CardSort
              columns={sortable}
              sortedBy={active?.id ?? ''}
              descending={active?.desc ?? false}
              onChange={(id, desc) => view.setSorting(id ? [{ id, desc }] : [])}
            />
          )}
        </div>
      )}
      <div className="data-table-scroll" ref={scrollRef}>
        {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a table or a list, both named */}
        <div
          role={asCards ? 'list' : 'table'}
          aria-label={label}
          aria-rowcount={asCards ? undefined : rowCount}
          className="data-table-grid"
          style={asCards ? undefined : gridStyle}
        >
          {!asCards && (
            <div role="rowgroup" className="data-table-head">
              <div role="row" className="data-table-header-row" aria-rowindex={1}>
                {selection && (
                  <div role="columnheader" className="data-table-cell data-table-select">
                    {selectAll}
                  </div>
                )}
                {visible.map((column) => {
                  const header = table.getColumn(column.id);
                  const direction = header?.getIsSorted() ?? false;
                  return (
                    <div
                      key={column.id}
                      role="columnheader"
                      className={`data-table-cell data-table-header${column.align === 'end' ? ' is-end' : ''}`}
                      aria-sort={direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : undefined}
                    >
                      {header?.getCanSort() ? (
                        <button type="button" className="data-table-sort" onClick={header.getToggleSortingHandler()}>
                          {column.header}
                          <span aria-hidden="true" className="sort-indicator">
                            {sortArrow(direction)}
                          </span>
                        </button>
                      ) : column.headerHidden ? (
                        <span className="visually-hidden">{column.header}</span>
                      ) : (
                        column.header
                      )}
                    </div>
                  );
                })}
              </div>
            </div>
          )}
          <div role={asCards ? 'presentation' : 'rowgroup'} className="data-table-body" style={{ height: items.length ? virtualizer.getTotalSize() : undefined }}>
            {items.length === 0 ? (
              <div role={asCards ? 'listitem' : 'row'} className="data-table-empty">
                {asCards ? empty : <div role="cell">{empty}</div>}
              </div>
            ) : (
              virtualizer.getVirtualItems().map((virtual) => renderItem(items[virtual.index]!, virtual.index, virtual.start))
            )}
          </div>
          {footer &&
            (asCards ? (
              <div role="listitem" className="data-table-card data-table-card-footer">
                {footer}
              </div>
            ) : (
              <div role="rowgroup" className="data-table-foot">
                <div role="row" className="data-table-footer-row" aria-rowindex={rowCount}>
                  <div role="cell" className="data-table-footer-cell">
                    {footer}
                  </div>
                </div>
              </div>
            ))}
        </div>
      </div>
    </div>
  );
}

/**
 * A row's cells (or a card's fields): drawn again only when its trip, columns or selection change, not each time the
 * table scrolls or measures a row (the virtualiser then only moves the rows).
 */
const RowCells = memo(function RowCells<Row extends RowData>({
  row,
  columns,
  asCards,
  selected,
  rowLabel,
}: {
  row: TableRow<Features, Row>;
  columns: DataColumn<Row>[];
  asCards: boolean;
  selected: boolean;
  /** Set when rows are selectable: the accessible name of the row's checkbox. */
  rowLabel: ((row: Row) => string) | undefined;
}) {
  const check = rowLabel && (
    <input
      type="checkbox"
      className="data-table-check"
      aria-label={rowLabel(row.original)}
      checked={selected}
      // The click carries Shift for a range; React's change event passes it on as the native event.
      onChange={row.getToggleSelectedHandler()}
    />
  );
  if (asCards) {
    const [title, ...rest] = columns;
    return (
      <>
        <div className="data-table-card-head">
          {check}
          {title && <div className="data-table-card-title">{title.cell(row.original)}</div>}
        </div>
        <dl className="data-table-card-fields">
          {rest.map((column) => (
            <div key={column.id} className={`data-table-card-field${column.headerHidden ? ' is-wide' : ''}`}>
              <dt className={column.headerHidden ? 'visually-hidden' : undefined}>{column.header}</dt>
              <dd>{column.cell(row.original)}</dd>
            </div>
          ))}
        </dl>
      </>
    );
  }
  return (
    <>
      {check && <div role="cell" className="data-table-cell data-table-select">{check}</div>}
      {columns.map((column) => (
        <div key={column.id} role={column.rowHeader ? 'rowheader' : 'cell'} className={`data-table-cell${column.align === 'end' ? ' is-end' : ''}`}>
          {column.cell(row.original)}
        </div>
      ))}
    </>
  );
}) as <Row extends RowData>(props: {
  row: TableRow<Features, Row>;
  columns: DataColumn<Row>[];
  asCards: boolean;
  selected: boolean;
  rowLabel: ((row: Row) => string) | undefined;
}) => ReactNode;

/** On a phone there are no headers to press: the sort is a choice of column and a direction. */
function CardSort<Row extends RowData>({ columns, sortedBy, descending, onChange }: { columns: DataColumn<Row>[]; sortedBy: string; descending: boolean; onChange: (id: string, desc: boolean) => void }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="data-table-card-sort">
      <label htmlFor={id}>{t('table.sortBy')}</label>
      <select id={id} className="field-input" value={sortedBy} onChange={(event) => onChange(event.target.value, false)}>
        {!sortedBy && <option value="">–</option>}
        {columns.map((column) => (
          <option key={column.id} value={column.id}>
            {column.header}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn btn-secondary data-table-direction"
        aria-label={t('table.reverse')}
        aria-pressed={descending}
        disabled={!sortedBy}
        onClick={() => onChange(sortedBy, !descending)}
      >
        <span aria-hidden="true">{sortArrow(descending ? 'desc' : 'asc')}</span>
      </button>
    </div>
  );
}

/**
 * The column choice of a `DataTable`: a dialog of checkboxes, saved together (at least one column stays). The screen
 * places its button where it keeps its other actions.
 */
export function ColumnChooser<Row extends RowData>({
  columns,
  view,
  isOpen,
  onClose,
  title,
}: {
  columns: readonly DataColumn<Row>[];
  view: Pick<TableViewState, 'hidden' | 'setHidden'>;
  isOpen: boolean;
  onClose: () => void;
  title: string;
}) {
  const { t } = useTranslation();
  const hideable = columns.filter((column) => column.canHide !== false);
  const [hidden, setHidden] = useState<string[]>([...view.hidden]);
  // Each opening starts from the saved choice.
  useEffect(() => {
    if (isOpen) setHidden([...view.hidden]);
  }, [isOpen, view.hidden]);
  const shown = hideable.filter((column) => !hidden.includes(column.id));
  return (
    <AppDialog isOpen={isOpen} onOpenChange={(open) => !open && onClose()} title={title}>
      <div className="dialog-body column-chooser" data-testid="column-chooser">
        {hideable.map((column) => (
          <CheckboxField
            key={column.id}
            isSelected={!hidden.includes(column.id)}
            onChange={(selected) => setHidden((current) => (selected ? current.filter((id) => id !== column.id) : [...current, column.id]))}
          >
            {column.header}
          </CheckboxField>
        ))}
      </div>
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.cancel')}
        </Button>
        <Button
          className="btn btn-primary"
          isDisabled={shown.length === 0 && hideable.length === columns.length}
          onPress={() => {
            view.setHidden(hidden.filter((id) => columns.some((column) => column.id === id)));
            onClose();
          }}
        >
          {t('common.save')}
        </Button>
      </div>
    </AppDialog>
  );
}
