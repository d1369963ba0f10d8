-- Canonical Silver order items. Rows without an order_item_id are dropped;
-- a blank order_id or product_id becomes NULL (blank-key policy, item 136).
with bronze as (

    select * from {{ source('bronze', 'order_items') }}

)

select
    {{ starter_cast('order_item_id', 'string') }} as order_item_id,
    {{ starter_foreign_key('order_id') }} as order_id,
    {{ starter_foreign_key('product_id') }} as product_id,
    {{ starter_cast('quantity', 'integer') }} as quantity,
    {{ starter_cast('unit_price', 'numeric') }} as unit_price
from bronze
where {{ starter_key_is_present('order_item_id') }}
