/**
 * A snake_case normalizer in the spirit of dlt's default naming convention,
 * used only to make synthetic Bronze names: `Customer ID` → `customer_id`,
 * `OrderItemID` → `order_item_id`. It is not claimed to equal dlt's output for
 * every input; real evidence carries dlt's own names in the dry run.
 */
export function snakeCase(raw: string): string {
  const spaced = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const name = /^[0-9]/.test(spaced) ? `_${spaced}` : spaced;
  return name.length === 0 ? '_' : name.slice(0, 63);
}
