/**
 * The element at `index` of a list whose bounds the caller has already
 * checked: the typed form of `list[index] as T`. An index outside the list is
 * a bug, thrown as a `RangeError` (a refusal-producing path turns it into
 * `internal_error`), never passed on as `undefined`; so is a hole or an
 * `undefined` element, which no list read this way holds.
 */
export function at<T>(list: ArrayLike<T>, index: number): T {
  const item = list[index];
  if (item === undefined) throw new RangeError(`index ${index} is outside a list of ${list.length}`);
  return item;
}
