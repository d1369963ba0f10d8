-- Silver orders from the migration Bronze source, with the same casts and
-- blank-key policy as silver_orders, plus the migration provenance columns.
with bronze as (

    select * from {{ source('migration_bronze', 'orders') }}

)

select
    {{ starter_cast('order_id', 'string') }} as order_id,
    {{ starter_foreign_key('customer_id') }} as customer_id,
    {{ starter_cast('order_status', 'string') }} as order_status,
    {{ starter_cast('order_date', 'date') }} as order_date,
    {{ starter_cast('updated_at', 'timestamp') }} as updated_at,
    _migration_run_id,
    _ingested_at_utc
from bronze
where {{ starter_key_is_present('order_id') }}
