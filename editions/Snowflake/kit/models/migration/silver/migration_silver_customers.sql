-- Silver customers from the migration Bronze source, with the same casts and
-- blank-key policy as silver_customers, plus the migration provenance columns.
with bronze as (

    select * from {{ source('migration_bronze', 'customers') }}

)

select
    {{ starter_cast('customer_id', 'string') }} as customer_id,
    {{ starter_cast('created_at', 'timestamp') }} as created_at,
    {{ starter_cast('country', 'string') }} as country,
    _migration_run_id,
    _ingested_at_utc
from bronze
where {{ starter_key_is_present('customer_id') }}
