-- Canonical Silver products. Rows whose product_id is NULL, empty or only
-- ASCII spaces are dropped (blank-key policy, item 136).
with bronze as (

    select * from {{ source('bronze', 'products') }}

)

select
    {{ starter_cast('product_id', 'string') }} as product_id,
    {{ starter_cast('product_name', 'string') }} as product_name,
    {{ starter_cast('category', 'string') }} as category
from bronze
where {{ starter_key_is_present('product_id') }}
