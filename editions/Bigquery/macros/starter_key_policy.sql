{#-
  The blank-key policy (backlog item 136), as macros every Silver model uses:

    starter_key_is_present(expression)
        A predicate for the WHERE clause on a primary key: false for NULL, for
        the empty string and for a value made only of ASCII spaces (U+0020).
        Other whitespace (a tab, a no-break space) is a value and is kept.
        Rows whose primary key is not present are dropped.

    starter_foreign_key(expression)
        A foreign key as a string, or NULL when it is NULL, empty or made only
        of ASCII spaces. Relationship tests ignore NULL, so a blank foreign key
        never fails them and never joins to anything.

  Keys are compared as strings (through starter_cast(..., 'string')), so the
  policy reads the same whether Bronze typed the column as text or a number.
  One implementation (default__) serves every warehouse: BigQuery, Snowflake
  and DuckDB all accept trim(value, ' '). It is dispatched all the same, so a
  project can override it per adapter.
-#}
{% macro starter_key_is_present(expression) -%}
  {{ adapter.dispatch('starter_key_is_present')(expression) }}
{%- endmacro %}

{% macro default__starter_key_is_present(expression) -%}
  ({{ expression }} is not null and trim({{ starter_cast(expression, 'string') }}, ' ') <> '')
{%- endmacro %}

{% macro starter_foreign_key(expression) -%}
  {{ adapter.dispatch('starter_foreign_key')(expression) }}
{%- endmacro %}

{% macro default__starter_foreign_key(expression) -%}
  case when {{ starter_key_is_present(expression) }} then {{ starter_cast(expression, 'string') }} end
{%- endmacro %}
