-- Canonical Silver orders. Rows without an order_id are dropped; a blank
-- customer_id becomes NULL (blank-key policy, item 136).
with bronze as (

    select * from {{ source('bronze', 'orders') }}

)

select
    {{ starter_cast('order_id', 'string') }} as order_id,
    {{ starter_foreign_key('customer_id') }} as customer_id,
    {{ starter_cast('order_status', 'string') }} as order_status,
    {{ starter_cast('order_date', 'date') }} as order_date,
    {{ starter_cast('updated_at', 'timestamp') }} as updated_at
from bronze
where {{ starter_key_is_present('order_id') }}
