-- One row per customer: how many orders they placed and when.
with customers as (

    select * from {{ ref('silver_customers') }}

),

orders as (

    select * from {{ ref('silver_orders') }}

)

select
    customers.customer_id,
    customers.country,
    count(orders.order_id) as order_count,
    min(orders.order_date) as first_order_date,
    max(orders.order_date) as last_order_date
from customers
left join orders
    on orders.customer_id = customers.customer_id
group by customers.customer_id, customers.country
