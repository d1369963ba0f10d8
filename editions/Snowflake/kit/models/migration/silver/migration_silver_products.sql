-- Silver products from the migration Bronze source, with the same casts and
-- blank-key policy as silver_products, plus the migration provenance columns.
with bronze as (

    select * from {{ source('migration_bronze', 'products') }}

)

select
    {{ starter_cast('product_id', 'string') }} as product_id,
    {{ starter_cast('product_name', 'string') }} as product_name,
    {{ starter_cast('category', 'string') }} as category,
    _migration_run_id,
    _ingested_at_utc
from bronze
where {{ starter_key_is_present('product_id') }}
