import { z } from '../../lib/validation';

/**
 * A user's view of one data table: the sort (at most three columns, first wins) and the columns they hid. Column ids
 * are the screen's own names; the server keeps them as given and the screen ignores ids it no longer has.
 */
const columnId = z.string().regex(/^[A-Za-z][\w.-]{0,63}$/);

export const TABLE_VIEW_SORT_MAX = 3;
export const TABLE_VIEW_HIDDEN_MAX = 64;

export const tableViewSchema = z.object({
  sorting: z.array(z.object({ id: columnId, desc: z.boolean() })).max(TABLE_VIEW_SORT_MAX),
  hidden: z.array(columnId).max(TABLE_VIEW_HIDDEN_MAX),
});
export type TableView = z.output<typeof tableViewSchema>;

/** A table's key names the screen's table (`units`, `places`, `triplog`), never an object of the account. */
export const tableViewParamsSchema = z.object({ table: z.string().regex(/^[a-z][a-z0-9.-]{0,63}$/) });
