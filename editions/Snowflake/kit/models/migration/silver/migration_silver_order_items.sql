-- Silver order items from the migration Bronze source, with the same casts and
-- blank-key policy as silver_order_items, plus the migration provenance columns.
with bronze as (

    select * from {{ source('migration_bronze', 'order_items') }}

)

select
    {{ starter_cast('order_item_id', 'string') }} as order_item_id,
    {{ starter_foreign_key('order_id') }} as order_id,
    {{ starter_foreign_key('product_id') }} as product_id,
    {{ starter_cast('quantity', 'integer') }} as quantity,
    {{ starter_cast('unit_price', 'numeric') }} as unit_price,
    _migration_run_id,
    _ingested_at_utc
from bronze
where {{ starter_key_is_present('order_item_id') }}
