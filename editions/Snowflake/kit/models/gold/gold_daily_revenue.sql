-- Revenue per order date, over orders that were not cancelled.
with orders as (

    select * from {{ ref('silver_orders') }}

),

items as (

    select * from {{ ref('silver_order_items') }}

)

select
    orders.order_date,
    count(distinct orders.order_id) as order_count,
    sum(items.quantity * items.unit_price) as revenue
from orders
inner join items
    on items.order_id = orders.order_id
where orders.order_status <> 'cancelled'
group by orders.order_date
