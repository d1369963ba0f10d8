-- Canonical Silver customers. Rows whose customer_id is NULL, empty or only
-- ASCII spaces are dropped (blank-key policy, item 136).
with bronze as (

    select * from {{ source('bronze', 'customers') }}

)

select
    {{ starter_cast('customer_id', 'string') }} as customer_id,
    {{ starter_cast('created_at', 'timestamp') }} as created_at,
    {{ starter_cast('country', 'string') }} as country
from bronze
where {{ starter_key_is_present('customer_id') }}
