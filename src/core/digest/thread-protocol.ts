/**
 * The wait a hashing thread makes for its next request, as source text for
 * the worker scripts (overlapped.ts, hash-threads.ts). The caller stores the
 * request's number, then notifies. When the caller is preempted between the
 * two, the thread may already have seen the number, done the request and
 * gone back to waiting; the late notify then wakes it with the number
 * unchanged. A wake-up is therefore never taken as a request: the thread
 * reads the number again and waits again until it changed. Taking it as one
 * did the same request twice — a chunk hashed twice, a valid file refused
 * (docs/performance.md, "A chunk hashed twice").
 */
export function nextRequestSource(control: string, index: number): string {
  return `function nextRequest(seen) {
  for (;;) {
    const now = Atomics.load(${control}, ${index});
    if (now !== seen) return now;
    Atomics.wait(${control}, ${index}, seen);
  }
}`;
}
