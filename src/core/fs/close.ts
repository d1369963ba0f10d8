/**
 * Closes a handle on an error path or during cleanup, where an error from
 * close is never the one worth reporting: the kernel releases the descriptor
 * even when close fails, and the error that led here is what the caller
 * reports.
 */
export function closeQuietly(handle: { close(): void }): void {
  try {
    handle.close();
  } catch {
    // Released by the kernel regardless.
  }
}

/**
 * Closes every handle, in order, even when one of them fails, so no
 * descriptor stays open behind a failing one; the first failure is thrown
 * once all were tried.
 */
export function closeEach(handles: Iterable<{ close(): void }>): void {
  let first: { readonly error: unknown } | undefined;
  for (const handle of handles) {
    try {
      handle.close();
    } catch (error: unknown) {
      first ??= { error };
    }
  }
  if (first !== undefined) throw first.error;
}
