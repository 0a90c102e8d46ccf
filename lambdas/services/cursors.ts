import { openListCursor, sealCursor } from '#infra/cursors';

/**
 * The cursors of the lists that page by an item key, an offset or a stored key (issue 41): the
 * service pages with what the cursor holds, the client sees it signed (infra/cursors.ts). A cursor
 * the list did not answer, changed by a character or made up, is a 422 on `cursor`.
 */
export const openedCursor = openListCursor;

/** The page's meta with its cursors as the client sent and gets them: the one sent, the next one signed. */
export async function signedMeta<M extends { cursor: string | null; next_cursor: string | null }>(meta: M, sent: string | undefined): Promise<M> {
  return { ...meta, cursor: sent ?? null, next_cursor: meta.next_cursor === null ? null : await sealCursor(meta.next_cursor) };
}
