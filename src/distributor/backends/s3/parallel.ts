/**
 * Runs `task` over `items` with at most `limit` at a time, in item order of
 * start. After the first failure no new task starts; the ones in flight
 * finish, then the first failure is thrown. Object stores answer one request
 * in tens of milliseconds, so one-at-a-time would make a bundle of a thousand
 * files take a minute.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  // One iterator shared by the workers: each takes the next item as it starts.
  const queue = items.values();
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const next = queue.next();
      if (next.done === true) return;
      try {
        await task(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
