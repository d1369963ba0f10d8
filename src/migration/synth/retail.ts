import type { Cast, TypeFamily } from '../identifiers.js';

/**
 * The canonical retail tables sealkit's synthetic evidence describes. Each
 * column lists raw source header variants as exported by real systems (mixed
 * case, spaces, run-together words, upper case); `--seed` picks one per
 * column. `target` and `cast` are the reviewed mapping; `family` is the type
 * family a SQL source would report (a CSV source reports text only).
 */
export interface RetailColumn {
  readonly target: string;
  readonly cast: Cast;
  readonly family: TypeFamily;
  readonly rawVariants: readonly [string, ...string[]];
}

export interface RetailTable {
  readonly table: string;
  readonly columns: readonly RetailColumn[];
}

export const RETAIL_TABLES: readonly RetailTable[] = [
  {
    table: 'customers',
    columns: [
      {
        target: 'customer_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Customer ID', 'CustomerID', 'customer id', 'CUSTOMER_ID'],
      },
      {
        target: 'created_at',
        cast: 'timestamp',
        family: 'timestamp',
        rawVariants: ['Created At', 'CreatedAt', 'Account Created', 'CREATED_AT'],
      },
      {
        target: 'country',
        cast: 'string',
        family: 'string',
        rawVariants: ['Country', 'Country Code', 'COUNTRY', 'billing country'],
      },
    ],
  },
  {
    table: 'products',
    columns: [
      {
        target: 'product_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Product ID', 'ProductID', 'SKU ID', 'PRODUCT_ID'],
      },
      {
        target: 'product_name',
        cast: 'string',
        family: 'string',
        rawVariants: ['Product Name', 'ProductName', 'Item Title', 'PRODUCT NAME'],
      },
      {
        target: 'category',
        cast: 'string',
        family: 'string',
        rawVariants: ['Category', 'Product Category', 'CATEGORY', 'dept name'],
      },
    ],
  },
  {
    table: 'orders',
    columns: [
      {
        target: 'order_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Order ID', 'OrderID', 'Order Number', 'ORDER_ID'],
      },
      {
        target: 'customer_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Customer ID', 'CustomerID', 'Client ID', 'CUSTOMER_ID'],
      },
      {
        target: 'order_status',
        cast: 'string',
        family: 'string',
        rawVariants: ['Order Status', 'Status', 'OrderStatus', 'ORDER STATUS'],
      },
      {
        target: 'order_date',
        cast: 'date',
        family: 'date',
        rawVariants: ['Order Date', 'OrderDate', 'Date Ordered', 'ORDER_DATE'],
      },
      {
        target: 'updated_at',
        cast: 'timestamp',
        family: 'timestamp',
        rawVariants: ['Updated At', 'Last Modified', 'UpdatedAt', 'LAST_UPDATE'],
      },
    ],
  },
  {
    table: 'order_items',
    columns: [
      {
        target: 'order_item_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Order Item ID', 'Line ID', 'OrderItemID', 'ORDER_ITEM_ID'],
      },
      {
        target: 'order_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Order ID', 'OrderID', 'Order Number', 'ORDER_ID'],
      },
      {
        target: 'product_id',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Product ID', 'ProductID', 'SKU ID', 'PRODUCT_ID'],
      },
      {
        target: 'quantity',
        cast: 'integer',
        family: 'integer',
        rawVariants: ['Quantity', 'Qty', 'QUANTITY', 'Units Ordered'],
      },
      {
        target: 'unit_price',
        cast: 'numeric',
        family: 'numeric',
        rawVariants: ['Unit Price', 'UnitPrice', 'Price Each', 'UNIT_PRICE'],
      },
    ],
  },
];

export const RETAIL_TABLE_NAMES: readonly string[] = RETAIL_TABLES.map((table) => table.table);

/** What a SQL source would report as the raw dialect type of each family: ignored evidence, never read or emitted. */
export const SQL_DIALECT_TYPES: { readonly [F in TypeFamily]: string } = {
  string: 'CHARACTER VARYING(255)',
  integer: 'BIGINT',
  numeric: 'NUMERIC(12,2)',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  time: 'TIME WITHOUT TIME ZONE',
  binary: 'BYTEA',
  json: 'JSONB',
  other: 'USER-DEFINED',
};
