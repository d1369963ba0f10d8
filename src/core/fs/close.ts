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
