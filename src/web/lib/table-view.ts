import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { TableView } from '../../modules/preferences/model';
import { api } from './api';
import { useSession } from './session';

export type { TableView };

/** A data table's view as the table reads and changes it (see `DataTable`). */
export interface TableViewState {
  sorting: TableView['sorting'];
  hidden: readonly string[];
  /** False until the user's stored view has been read (the table waits, so it never flashes the defaults). */
  ready: boolean;
  setSorting(next: TableView['sorting']): void;
  setHidden(next: string[]): void;
}

/**
 * The caller's view of one table, kept on the server per user (`/api/preferences/tables/:table`) so it follows them
 * to another browser. A change shows at once and is saved behind it; a failed save leaves the change for this visit.
 */
export function useTableView(table: string, defaults: TableView): TableViewState {
  const client = useQueryClient();
  const userId = useSession()?.user.ID;
  const key = useMemo(() => ['preferences', 'tables', userId, table], [userId, table]);
  const stored = useQuery({
    queryKey: key,
    queryFn: () => api.get<TableView | null>(`/api/preferences/tables/${table}`),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const save = useMutation({ mutationFn: (view: TableView) => api.post<TableView>(`/api/preferences/tables/${table}`, view) });
  const view = stored.data ?? defaults;
  const update = useCallback(
    (change: Partial<TableView>) => {
      const next = { ...(client.getQueryData<TableView | null>(key) ?? defaults), ...change };
      client.setQueryData(key, next);
      save.mutate(next);
    },
    [client, key, defaults, save.mutate],
  );
  return useMemo(
    () => ({
      sorting: view.sorting,
      hidden: view.hidden,
      ready: !stored.isPending,
      setSorting: (sorting) => update({ sorting }),
      setHidden: (hidden) => update({ hidden }),
    }),
    [view, stored.isPending, update],
  );
}
